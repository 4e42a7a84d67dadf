"""Uploads from web routes (`multipart/form-data`) straight into the media store.

Usage (a `@mesh_route` taking the `Request`)::

    form = await request.form()
    uri = await save_upload(form["file"], accept="image/*,application/pdf")

The file is read in chunks up to `media.max_upload_bytes` (larger: HTTP 413, nothing stored); its
declared type must fit `accept` and, for PNG, JPEG, GIF, WebP, BMP and PDF, match its first bytes (else
HTTP 415). A store that cannot be written answers 503.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException

from .active import current_media
from .errors import MediaError, MediaStoreUnavailable
from .sniff import SNIFFED_TYPES, sniff
from .store import MediaStore, matches_type

__all__ = ["MediaUpload", "save_upload", "save_upload_result"]

_CHUNK = 64 * 1024
_GENERIC = "application/octet-stream"


@dataclass(frozen=True, slots=True)
class MediaUpload:
    uri: str
    name: str
    mime_type: str
    size: int


async def save_upload(
    upload: Any,
    filename: str | None = None,
    mime_type: str | None = None,
    *,
    accept: str | None = None,
    max_bytes: int | None = None,
    store: MediaStore | None = None,
) -> str:
    """Store an uploaded file (Starlette's or FastAPI's `UploadFile`) and return its media URI."""
    result = await save_upload_result(
        upload, filename, mime_type, accept=accept, max_bytes=max_bytes, store=store
    )
    return result.uri


async def save_upload_result(
    upload: Any,
    filename: str | None = None,
    mime_type: str | None = None,
    *,
    accept: str | None = None,
    max_bytes: int | None = None,
    store: MediaStore | None = None,
) -> MediaUpload:
    """`save_upload` with the stored name, type and size."""
    if not isinstance(upload, UploadFile):
        raise HTTPException(
            400, f"expected an uploaded file (multipart/form-data), got {type(upload).__name__}"
        )
    runtime = current_media()
    limit = runtime.settings.max_upload_bytes if max_bytes is None else max_bytes
    accepted = runtime.settings.upload_types if accept is None else accept
    name = filename or upload.filename or "upload"
    declared = (mime_type or upload.content_type or _GENERIC).split(";", 1)[0].strip().lower()
    data = await _read_limited(upload, name, limit)
    found = sniff(data)
    if declared == _GENERIC and found is not None:  # a client that sent no real type
        declared = found
    if not matches_type(declared, accepted):
        raise HTTPException(415, f"{name!r} is {declared}; this route accepts {accepted}")
    if (declared in SNIFFED_TYPES or found is not None) and found != declared:
        shown = f"its bytes are {found}" if found else "its bytes are not"
        raise HTTPException(415, f"{name!r} is declared {declared} but {shown}; send the file's real type")
    try:
        uri = await (store or runtime.store).upload(data, name, declared)
    except MediaStoreUnavailable as exc:
        raise HTTPException(503, str(exc)) from exc
    except MediaError as exc:
        raise HTTPException(400, str(exc)) from exc
    return MediaUpload(uri, name, declared, len(data))


async def _read_limited(upload: UploadFile, name: str, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while chunk := await upload.read(_CHUNK):
        size += len(chunk)
        if size > limit:
            raise HTTPException(
                413, f"{name!r} is larger than {limit} bytes (media.max_upload_bytes); nothing was stored"
            )
        chunks.append(chunk)
    return b"".join(chunks)
