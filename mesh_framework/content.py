"""MCP content blocks a tool may return instead of (or beside) a structured value.

Usage::

    @mesh_tool()
    def chart() -> ToolResult:
        return ToolResult([TextContent("the chart:"), ImageContent(png_base64, "image/png")])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import field
from typing import Any

from ._frozen import frozen

__all__ = [
    "AudioContent",
    "Content",
    "EmbeddedResource",
    "ImageContent",
    "ResourceLink",
    "TextContent",
    "ToolResult",
]


@frozen
class TextContent:
    text: str

    def to_wire(self) -> dict[str, Any]:
        return {"type": "text", "text": self.text}


@frozen
class ImageContent:
    data: str  # base64
    mime_type: str

    def to_wire(self) -> dict[str, Any]:
        return {"type": "image", "data": self.data, "mimeType": self.mime_type}


@frozen
class AudioContent:
    data: str  # base64
    mime_type: str

    def to_wire(self) -> dict[str, Any]:
        return {"type": "audio", "data": self.data, "mimeType": self.mime_type}


@frozen
class EmbeddedResource:
    """A resource carried inline: give `text` for text resources, `blob` (base64) for binary ones."""

    uri: str
    mime_type: str | None = None
    text: str | None = None
    blob: str | None = None

    def __post_init__(self) -> None:
        if (self.text is None) == (self.blob is None):
            raise ValueError("EmbeddedResource needs exactly one of text= or blob=")

    def to_wire(self) -> dict[str, Any]:
        resource: dict[str, Any] = {"uri": self.uri}
        if self.mime_type:
            resource["mimeType"] = self.mime_type
        if self.text is not None:
            resource["text"] = self.text
        else:
            resource["blob"] = self.blob
        return {"type": "resource", "resource": resource}


@frozen
class ResourceLink:
    uri: str
    name: str
    mime_type: str | None = None
    description: str | None = None
    size: int | None = None  # bytes; top-level, as MCP and MCP Mesh send it

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"type": "resource_link", "uri": self.uri, "name": self.name}
        if self.description:
            wire["description"] = self.description
        if self.mime_type:
            wire["mimeType"] = self.mime_type
        if self.size is not None:
            wire["size"] = self.size
        return wire


Content = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink
CONTENT_TYPES = (TextContent, ImageContent, AudioContent, EmbeddedResource, ResourceLink)


@frozen
class ToolResult:
    """A complete tool answer: content blocks, optional structured content, and the error flag."""

    content: Sequence[Content] = ()
    structured: dict[str, Any] | None = None
    is_error: bool = False
    meta: dict[str, Any] | None = field(default=None)

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"content": [c.to_wire() for c in self.content], "isError": self.is_error}
        if self.structured is not None:
            wire["structuredContent"] = self.structured
        if self.meta:
            wire["_meta"] = self.meta
        return wire
