"""Tool results with images for OpenAI's Chat Completions API, which takes images in user messages only.

As MCP Mesh sends them: each such tool message says `[Image from tool result]` (with its text), and after
the run of tool messages one user message carries the images ("Here are the images from the tool results
above:"). Transcripts without such results pass unchanged (no copy).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..types import Message

__all__ = ["openai_messages"]

_MARKER = "[Image from tool result]"
_LEAD = "Here are the images from the tool results above:"


def openai_messages(messages: Sequence[Message]) -> list[Message]:
    if not any(m.get("role") == "tool" and isinstance(m.get("content"), list) for m in messages):
        return list(messages)
    out: list[Message] = []
    pending: list[dict[str, Any]] = []
    for message in messages:
        if message.get("role") != "tool" and pending:
            out.append({"role": "user", "content": [{"type": "text", "text": _LEAD}, *pending]})
            pending = []
        content = message.get("content")
        if message.get("role") == "tool" and isinstance(content, list):
            texts = [str(p.get("text", "")) for p in content if p.get("type") == "text"]
            media = [p for p in content if p.get("type") != "text"]
            pending.extend(media)
            text = "\n".join(t for t in texts if t)
            shown = f"{_MARKER}\n{text}" if text and media else (text or _MARKER)
            out.append({**message, "content": shown if media else text})
        else:
            out.append(message)
    if pending:
        out.append({"role": "user", "content": [{"type": "text", "text": _LEAD}, *pending]})
    return out
