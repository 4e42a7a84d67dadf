"""Prompt messages: what a prompt function returns, turned into the `messages` of a `GetPromptResult`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from .._frozen import frozen
from ..content import CONTENT_TYPES, Content, TextContent

__all__ = ["PromptMessage", "to_messages"]


@frozen
class PromptMessage:
    """One message of a prompt; `content` is text or a content block (`ImageContent`, `EmbeddedResource`)."""

    content: str | Content
    role: Literal["user", "assistant"] = "user"

    def to_wire(self) -> dict[str, Any]:
        content = TextContent(self.content) if isinstance(self.content, str) else self.content
        return {"role": self.role, "content": content.to_wire()}


def to_messages(value: Any) -> list[dict[str, Any]]:
    """Wire messages from a prompt's return value; TypeError for anything else."""
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    return [_message(item) for item in items]


def _message(item: Any) -> dict[str, Any]:
    if isinstance(item, PromptMessage):
        return item.to_wire()
    if isinstance(item, (str, *CONTENT_TYPES)):
        return PromptMessage(item).to_wire()
    if isinstance(item, Mapping) and item.get("role") in ("user", "assistant") and "content" in item:
        content = item["content"]
        return {
            "role": item["role"],
            "content": {"type": "text", "text": content} if isinstance(content, str) else dict(content),
        }
    raise TypeError(
        "a prompt returns text, a PromptMessage, a content block or a list of these, "
        f"not {type(item).__name__}"
    )
