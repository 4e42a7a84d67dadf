"""Media in tool results: stored once, then sent as embedded content (small) or a `resource_link`.

Usage::

    @mesh_tool()
    async def chart(quarter: str) -> Content:
        return await media_result(render_png(quarter), "chart.png", "image/png", name="Chart")

Media up to `media.inline_max_bytes` (default 16 KiB) is embedded (`image`, `audio`, or a `resource` with
the store's URI), so a client that cannot reach the store still gets it; larger media is a
`resource_link` carrying the URI and `size`, which MCP Mesh agents and ours resolve from the store.
"""

from __future__ import annotations

import base64
import mimetypes
from collections.abc import Generator
from typing import Any

from ..content import AudioContent, Content, EmbeddedResource, ImageContent, ResourceLink
from .active import current_media
from .store import MediaStore

__all__ = ["MediaResult", "media_link", "media_result"]


def media_link(
    uri: str, name: str, mime_type: str, description: str | None = None, size: int | None = None
) -> ResourceLink:
    """A `resource_link` to media already in the store (MCP Mesh's `media_result(uri, ...)`)."""
    return ResourceLink(uri, name, mime_type, description, size)


async def media_result(
    data: bytes,
    filename: str,
    mime_type: str | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    store: MediaStore | None = None,
    inline_max_bytes: int | None = None,
) -> Content:
    """Store `data` as `filename` and answer it as content: embedded up to `inline_max_bytes` (default
    `media.inline_max_bytes`; 0 always links), else a `resource_link` with its size."""
    runtime = current_media()
    store = store or runtime.store
    mime_type = mime_type or mimetypes.guess_type(filename)[0] or "application/octet-stream"
    uri = await store.upload(data, filename, mime_type)
    limit = runtime.settings.inline_max_bytes if inline_max_bytes is None else inline_max_bytes
    if len(data) > limit:
        return media_link(uri, name or filename, mime_type, description, len(data))
    encoded = base64.b64encode(data).decode("ascii")
    if mime_type.startswith("image/"):
        return ImageContent(encoded, mime_type)
    if mime_type.startswith("audio/"):
        return AudioContent(encoded, mime_type)
    return EmbeddedResource(uri, mime_type, blob=encoded)


class MediaResult:
    """MCP Mesh's one-step helper: `return await MediaResult(data, "chart.png", "image/png")` stores the
    bytes and answers a `resource_link` (always a link, as MCP Mesh does)."""

    def __init__(
        self,
        data: bytes,
        filename: str,
        mime_type: str,
        name: str | None = None,
        description: str | None = None,
    ) -> None:
        self.data = data
        self.filename = filename
        self.mime_type = mime_type
        self.name = name or filename
        self.description = description

    def __await__(self) -> Generator[Any, None, Content]:
        return media_result(
            self.data,
            self.filename,
            self.mime_type,
            name=self.name,
            description=self.description,
            inline_max_bytes=-1,
        ).__await__()
