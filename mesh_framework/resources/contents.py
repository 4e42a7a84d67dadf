"""Resource contents: a resource function's return value (or a file's bytes) as `ResourceContents`."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from pydantic_core import to_json

from ..content import EmbeddedResource

__all__ = ["TEXT_TYPES", "blob_contents", "is_text_type", "text_contents", "to_contents"]

TEXT_TYPES = (
    "application/json",
    "application/xml",
    "application/yaml",
    "application/x-yaml",
    "application/javascript",
    "application/toml",
    "application/x-sh",
)


def is_text_type(mime_type: str) -> bool:
    base = mime_type.split(";", 1)[0].strip().lower()
    return base.startswith("text/") or base in TEXT_TYPES or base.endswith(("+json", "+xml"))


def text_contents(uri: str, text: str, mime_type: str) -> dict[str, Any]:
    return {"uri": uri, "mimeType": mime_type, "text": text}


def blob_contents(uri: str, data: bytes, mime_type: str) -> dict[str, Any]:
    return {"uri": uri, "mimeType": mime_type, "blob": base64.b64encode(data).decode("ascii")}


def to_contents(uri: str, value: Any, mime_type: str | None) -> list[dict[str, Any]]:
    """The `contents` of `resources/read` for a value; TypeError for values that are not content."""
    if isinstance(value, EmbeddedResource):
        return [value.to_wire()["resource"]]
    if isinstance(value, (bytes, bytearray, memoryview)):
        return [blob_contents(uri, bytes(value), mime_type or "application/octet-stream")]
    if isinstance(value, str):
        return [text_contents(uri, value, mime_type or "text/plain")]
    if isinstance(value, list) and value and all(isinstance(v, EmbeddedResource) for v in value):
        return [v.to_wire()["resource"] for v in value]
    if isinstance(value, (Mapping, list, tuple, int, float, bool)) or value is None:
        return [text_contents(uri, to_json(value).decode(), mime_type or "application/json")]
    raise TypeError(
        f"a resource returns str, bytes, JSON data or an EmbeddedResource, not {type(value).__name__}"
    )
