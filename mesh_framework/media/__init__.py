"""Media through the mesh: a store (a local folder or S3), media parameters and results of tools,
uploads from web routes, and images and PDFs for LLMs (llm/media.py)."""

from .active import build_media_store, current_media, use_media
from .errors import MediaError, MediaNotFound, MediaStoreUnavailable
from .links import media_refs
from .local import LocalMediaStore
from .media import Media
from .params import MediaParam, MediaRef
from .responses import media_response
from .results import MediaResult, media_link, media_result
from .store import MediaStore
from .uploads import MediaUpload, read_upload_form, save_upload, save_upload_result

__all__ = [
    "LocalMediaStore",
    "Media",
    "MediaError",
    "MediaNotFound",
    "MediaParam",
    "MediaRef",
    "MediaResult",
    "MediaStore",
    "MediaStoreUnavailable",
    "MediaUpload",
    "build_media_store",
    "current_media",
    "media_link",
    "media_refs",
    "media_response",
    "media_result",
    "read_upload_form",
    "save_upload",
    "save_upload_result",
    "use_media",
]
