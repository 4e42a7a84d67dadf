"""Uploads from web routes (`multipart/form-data`) straight into the media store.

Usage (a `@mesh_route` taking the `Request`)::

    @mesh_route("/api/receipts", methods=["POST"], accepts=["multipart/form-data"])
    async def upload_receipt(request: Request) -> dict[str, str]:
        return {"uri": await save_upload(request, accept="image/*,application/pdf")}

Given the `Request`, the form is read here, counting bytes as they arrive: past `media.max_upload_bytes`
(plus `FORM_OVERHEAD_BYTES` for the form's headers and other fields) the answer is HTTP 413 and nothing
more is read or spooled. Given a file of a form the route parsed itself (`form["file"]`), the limit is
checked on the spooled file. The declared type must fit `accept` and, for PNG, JPEG, GIF, WebP, BMP, PDF
and SVG, match the file's first bytes (else HTTP 415); SVG fits only an `accept` naming `image/svg+xml`.

Each upload is stored under a name of its own (`receipt-5f0c2a9e81b3.png`), so two callers sending the
same name never overwrite each other; `overwrite=True` stores it under the name as given (a route that
means to replace). A store that cannot be written answers 503.
"""

from __future__ import annotations

import mimetypes
import re
import secrets
from collections.abc import AsyncGenerator
from typing import Any

from starlette.datastructures import FormData, UploadFile
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import ClientDisconnect, Request

from .._frozen import frozen
from .active import current_media
from .errors import MediaError, MediaStoreUnavailable
from .sniff import SNIFFED_TYPES, sniff
from .store import MediaStore, check_filename, matches_type

__all__ = ["FORM_OVERHEAD_BYTES", "MediaUpload", "read_upload_form", "save_upload", "save_upload_result"]

FORM_OVERHEAD_BYTES = 64 * 1024  # a form's boundaries, part headers and small fields beside the file
_CHUNK = 64 * 1024
_GENERIC = "application/octet-stream"
_STEM_CHARACTERS = 80  # of the sent name kept in the stored one, at most _STEM_BYTES in UTF-8
_STEM_BYTES = 120
_UNSAFE = re.compile(r"[^\w.-]+")  # what a stored name keeps: letters and digits of any script, . _ -


@frozen
class MediaUpload:
    """A stored upload: its `uri`, the `name` the client sent, its type and its size in bytes."""

    uri: str
    name: str
    mime_type: str
    size: int


async def read_upload_form(request: Request, *, max_bytes: int | None = None) -> FormData:
    """The request's `multipart/form-data` form, read within `max_bytes` (default
    `media.max_upload_bytes`) plus `FORM_OVERHEAD_BYTES`: HTTP 413 as soon as the body passes it (nothing
    more read), 400 for a body that is not a well-formed form. The caller closes the form's files
    (`await form.close()`); `save_upload(request)` does."""
    limit = current_media().settings.max_upload_bytes if max_bytes is None else max_bytes
    content_type = request.headers.get("content-type", "")
    if content_type.split(";", 1)[0].strip().lower() != "multipart/form-data":
        raise HTTPException(
            415, f"expected a multipart/form-data upload, got {content_type[:80] or 'no Content-Type'!r}"
        )
    try:
        stream = _bounded(request.stream(), limit + FORM_OVERHEAD_BYTES, limit)
        return await MultiPartParser(request.headers, stream, max_files=8, max_fields=64).parse()
    except MultiPartException as exc:
        raise HTTPException(400, f"the upload is not a well-formed form: {exc.message}") from None
    except ClientDisconnect:
        raise HTTPException(400, "the client left before the upload was whole") from None
    except RuntimeError as exc:
        if str(exc) != "Stream consumed":  # Starlette's words for a body the route already read
            raise
        raise HTTPException(
            500, "the route read the request body before save_upload(request); pass the request unread"
        ) from exc


async def _bounded(chunks: AsyncGenerator[bytes, None], most: int, limit: int) -> AsyncGenerator[bytes, None]:
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        if size > most:
            raise HTTPException(
                413, f"the upload is larger than {limit} bytes (media.max_upload_bytes); nothing was stored"
            )
        yield chunk


async def save_upload(
    upload: Any,
    filename: str | None = None,
    mime_type: str | None = None,
    *,
    accept: str | None = None,
    max_bytes: int | None = None,
    store: MediaStore | None = None,
    field: str = "file",
    overwrite: bool = False,
) -> str:
    """Store an uploaded file and return its media URI. `upload` is the route's `Request` (its form is
    read within the limit; the file is the form's `field`) or an `UploadFile` of a form already read."""
    result = await save_upload_result(
        upload,
        filename,
        mime_type,
        accept=accept,
        max_bytes=max_bytes,
        store=store,
        field=field,
        overwrite=overwrite,
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
    field: str = "file",
    overwrite: bool = False,
) -> MediaUpload:
    """`save_upload` with the name sent, the type and the size."""
    if isinstance(upload, Request):
        form = await read_upload_form(upload, max_bytes=max_bytes)
        try:
            file = form.get(field)
            if not isinstance(file, UploadFile):
                raise HTTPException(400, f"the form has no file in its {field[:40]!r} field")
            return await save_upload_result(
                file,
                filename,
                mime_type,
                accept=accept,
                max_bytes=max_bytes,
                store=store,
                overwrite=overwrite,
            )
        finally:
            await form.close()
    if not isinstance(upload, UploadFile):
        raise HTTPException(
            400, f"expected an uploaded file (multipart/form-data), got {type(upload).__name__}"
        )
    runtime = current_media()
    limit = runtime.settings.max_upload_bytes if max_bytes is None else max_bytes
    accepted = runtime.settings.upload_types if accept is None else accept
    name = filename or upload.filename or "upload"
    shown = name[:80]
    declared = (mime_type or upload.content_type or _GENERIC).split(";", 1)[0].strip().lower()
    data = await _read_limited(upload, shown, limit)
    found = sniff(data)
    if declared == _GENERIC and found is not None:  # a client that sent no real type
        declared = found
    if not matches_type(declared, accepted):
        raise HTTPException(415, f"{shown!r} is {declared[:80]}; this route accepts {accepted}")
    if (declared in SNIFFED_TYPES or found is not None) and found != declared:
        proof = f"its bytes are {found}" if found else "its bytes are not"
        raise HTTPException(
            415, f"{shown!r} is declared {declared[:80]} but {proof}; send the file's real type"
        )
    try:
        stored = check_filename(name) if overwrite else unique_name(name, declared)
        uri = await (store or runtime.store).upload(data, stored, declared)
    except MediaStoreUnavailable as exc:
        raise HTTPException(503, str(exc)) from exc
    except MediaError as exc:
        raise HTTPException(400, str(exc)) from exc
    return MediaUpload(uri, name, declared, len(data))


def unique_name(name: str, mime_type: str) -> str:
    """A stored name of its own for an upload sent as `name`: the name's stem in safe characters, a random
    part, and an extension that says `mime_type` (`../My Receipt.png` -> `My_Receipt-5f0c2a9e81b3.png`)."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    stem, dot, extension = base.rpartition(".")
    if not dot:
        stem, extension = base, ""
    suffix = f".{extension}" if extension else ""
    if not suffix or mimetypes.guess_type(f"x{suffix}")[0] != mime_type:
        stem = base  # the name's extension says another type: keep it in the stem, add the right one
        suffix = mimetypes.guess_extension(mime_type) or ".bin"
    safe = _UNSAFE.sub("_", stem).strip("._")[:_STEM_CHARACTERS]
    safe = safe.encode()[:_STEM_BYTES].decode("utf-8", "ignore") or "upload"
    suffix = _UNSAFE.sub("_", suffix)[:16]
    return f"{safe}-{secrets.token_hex(6)}{suffix}"


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
