"""Media for the model: URIs and media in tool results as content parts of the chat transcript.

The transcript keeps OpenAI's part shapes (`image_url` with a data URL, `file` with `file_data` for PDFs,
`text`); each vendor adapter turns them into its own inputs (Anthropic `image` and `document` blocks).
Media is fetched from the store when a request to the model is built, not when a URI is passed around.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from typing import Any

from ..media.active import current_media
from ..media.errors import MediaError
from ..media.media import Media, filename_of
from ..media.store import MediaStore

__all__ = ["media_note", "media_parts", "part_of", "tool_result_content"]

_TEXT_LIMIT = 50_000
_TEXT_TYPES = ("text/", "application/json", "application/xml", "application/csv")


def media_note(description: str, schema: Mapping[str, Any]) -> str:
    """`description` with MCP Mesh's note on media parameters appended for the model
    (`Accepts media: 'image' accepts image/* URIs.`), so it knows to pass URIs there."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return description
    accepted = [
        f"'{name}' accepts {prop['x-media-type']} URIs"
        for name, prop in properties.items()
        if isinstance(prop, Mapping) and "x-media-type" in prop
    ]
    if not accepted:
        return description
    note = "Accepts media: " + ", ".join(accepted) + "."
    return f"{description} {note}" if description else note


def part_of(media: Media) -> dict[str, Any]:
    """One content part for `media`: an image, a PDF file, text, or a line naming what cannot be shown."""
    if media.mime_type.startswith("image/"):
        return {"type": "image_url", "image_url": {"url": media.data_url(), "detail": "high"}}
    if media.mime_type == "application/pdf":
        return {"type": "file", "file": {"filename": media.filename, "file_data": media.data_url()}}
    if media.mime_type.startswith(_TEXT_TYPES):
        text = media.data.decode("utf-8", errors="replace")
        if len(text) > _TEXT_LIMIT:
            text = text[:_TEXT_LIMIT] + f"\n\n[... truncated, {len(text)} total characters]"
        name = media.filename
        return {
            "type": "text",
            "text": f"--- Content of {name} ({media.mime_type}) ---\n{text}\n--- End of {name} ---",
        }
    return {
        "type": "text",
        "text": f"[media: {media.filename} ({media.mime_type}, {media.size} bytes) at {media.uri}]",
    }


async def media_parts(uris: Iterable[str], store: MediaStore | None = None) -> list[dict[str, Any]]:
    """The content parts of media URIs, fetched from `store` (default: the agent's) in order."""
    store = store or current_media().store
    return [part_of(await store.fetch(str(uri))) for uri in uris]


def _is_visual(mime_type: str) -> bool:
    return mime_type.startswith("image/") or mime_type == "application/pdf"


async def tool_result_content(
    result: Mapping[str, Any], text: str, store: MediaStore | None = None
) -> str | list[dict[str, Any]]:
    """A tool result as the model reads it: `text` alone, or, when the result carries images or PDFs
    (embedded, or `resource_link`s to the store), `text` and those as parts. A link that cannot be
    fetched becomes a line saying so (the tool loop goes on)."""
    blocks = [b for b in result.get("content") or () if isinstance(b, Mapping)]
    wanted = [
        b
        for b in blocks
        if (b.get("type") == "image")
        or (b.get("type") == "resource_link" and _is_visual(str(b.get("mimeType") or "")))
        or (b.get("type") == "resource" and _is_visual(str((b.get("resource") or {}).get("mimeType") or "")))
    ]
    if not wanted:
        return text
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    for block in wanted:
        parts.append(await _block_part(block, store))
    return parts


async def _block_part(block: Mapping[str, Any], store: MediaStore | None) -> dict[str, Any]:
    kind = block.get("type")
    if kind == "image":
        mime_type = str(block.get("mimeType") or "image/png")
        return {
            "type": "image_url",
            "image_url": {"url": f"data:{mime_type};base64,{block.get('data')}", "detail": "high"},
        }
    if kind == "resource":
        resource = block.get("resource") or {}
        uri = str(resource.get("uri") or "")
        data = base64.b64decode(str(resource.get("blob") or ""))
        return part_of(Media(data, str(resource.get("mimeType")), uri or "media"))
    uri = str(block.get("uri") or "")
    try:
        return part_of(await (store or current_media().store).fetch(uri))
    except MediaError as exc:  # the model is told, the loop goes on (as MCP Mesh does)
        name = block.get("name") or filename_of(uri)
        return {
            "type": "text",
            "text": f"[resource_link: {name} ({block.get('mimeType')}) at {uri} (fetch failed: {exc})]",
        }
