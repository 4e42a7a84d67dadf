"""Media sent to a browser from a route: the type its bytes prove, never sniffed again by the browser, and
anything a browser would run (SVG, HTML, XML, scripts) as a download inside a sandbox.

Usage (a `@mesh_route` serving what the store holds)::

    @mesh_route("/api/media")
    async def show(uri: str, store: MediaStore) -> Response:
        return media_response(await store.fetch(uri))
"""

from __future__ import annotations

from urllib.parse import quote

from starlette.responses import Response

from .media import Media
from .sniff import sniff

__all__ = ["media_response"]

# Types a browser shows without running anything in the page's origin: these are answered inline.
_PASSIVE = frozenset(
    {"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "application/pdf", "text/plain"}
)
_PASSIVE_FAMILIES = ("audio/", "video/")


def media_response(media: Media, *, filename: str | None = None) -> Response:
    """An HTTP answer carrying `media`: `Content-Type` from its bytes (else its stored type) and
    `X-Content-Type-Options: nosniff`; any type but passive images, PDF, plain text, audio and video
    (SVG above all) is `Content-Disposition: attachment` under `Content-Security-Policy: sandbox`."""
    mime_type = (
        sniff(media.data) or media.mime_type.split(";", 1)[0].strip().lower() or "application/octet-stream"
    )
    headers = {"x-content-type-options": "nosniff"}
    if mime_type not in _PASSIVE and not mime_type.startswith(_PASSIVE_FAMILIES):
        name = filename or media.filename
        fallback = "".join(c if c.isascii() and c.isprintable() and c not in '"\\' else "_" for c in name)
        headers["content-disposition"] = (
            f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(name)}"
        )
        headers["content-security-policy"] = "sandbox; default-src 'none'"
    return Response(media.data, media_type=mime_type, headers=headers)
