"""Media through the mesh: a store (a local folder or S3), media parameters and results of tools,
uploads from web routes, and images and PDFs for LLMs (llm/media.py). Names load on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
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

_HOMES = {
    "build_media_store": ".active",
    "current_media": ".active",
    "use_media": ".active",
    "MediaError": ".errors",
    "MediaNotFound": ".errors",
    "MediaStoreUnavailable": ".errors",
    "media_refs": ".links",
    "LocalMediaStore": ".local",
    "Media": ".media",
    "MediaParam": ".params",
    "MediaRef": ".params",
    "media_response": ".responses",
    "MediaResult": ".results",
    "media_link": ".results",
    "media_result": ".results",
    "MediaStore": ".store",
    "MediaUpload": ".uploads",
    "read_upload_form": ".uploads",
    "save_upload": ".uploads",
    "save_upload_result": ".uploads",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals())
