"""Media in a dependency's answer: the `resource_link`s (and embedded resources with a store URI) of a
tool result, as `MediaRef`s to read.

Usage (a tool calling a dependency that answers media)::

    for ref in media_refs(await chart(quarter="q3")):
        media = await ref.read()
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .params import MediaRef

__all__ = ["media_refs"]

_SCHEMES = ("file://", "s3://")


def media_refs(value: Any) -> list[MediaRef]:
    """The media URIs in `value`: a tool result as a proxy answers it (content blocks, or one), in our
    shape (`{"type": "resource_link", "uri": ...}`) or MCP Mesh's (`{"resource": {"uri": ...}}`)."""
    blocks = value if isinstance(value, list) else [value]
    refs: list[MediaRef] = []
    for block in blocks:
        if not isinstance(block, Mapping) or block.get("type") not in ("resource_link", "resource"):
            continue
        inner = block.get("resource")
        uri = block.get("uri") or (inner.get("uri") if isinstance(inner, Mapping) else None)
        if isinstance(uri, str) and uri.startswith(_SCHEMES):
            refs.append(MediaRef(uri))
    return refs
