"""OpenAI chat-format transcripts and tools in Anthropic's Messages API shape.

System messages become `system`; assistant `tool_calls` become `tool_use` blocks; `role: tool` messages
become `tool_result` blocks of a user turn. Consecutive turns of one role are merged into one, as the API
wants user and assistant to alternate (tool results first, then the user's text).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..model import LlmError
from ..types import Message
from ._common import parse_arguments

__all__ = ["anthropic_tools", "anthropic_transcript"]

Block = dict[str, Any]


def anthropic_transcript(messages: Sequence[Message]) -> tuple[str | None, list[dict[str, Any]]]:
    """The `system` text (None when there is none) and the `messages` of a Messages API request."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        content = message.get("content")
        if role in ("system", "developer"):
            text = _text_of(content)
            if text:
                system.append(text)
        elif role == "user":
            _append(turns, "user", _user_content(content))
        elif role == "assistant":
            blocks = _assistant_blocks(message)
            if blocks:
                _append(turns, "assistant", blocks)
        elif role == "tool":
            result: Block = {"type": "tool_result", "tool_use_id": str(message.get("tool_call_id") or "")}
            result["content"] = content if isinstance(content, str) else _user_content(content or "")
            _append(turns, "user", [result])
        else:
            raise LlmError(f"Message {index} has role {role!r}; expected system, user, assistant or tool.")
    return ("\n\n".join(system) or None), turns


def anthropic_tools(tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI function tools as `{name, description, input_schema}`; other tools pass as they are."""
    converted: list[dict[str, Any]] = []
    for tool in tools:
        function = tool.get("function")
        if tool.get("type", "function") != "function" or not isinstance(function, Mapping):
            converted.append(dict(tool))
            continue
        spec: dict[str, Any] = {"name": function["name"]}
        if function.get("description"):
            spec["description"] = function["description"]
        spec["input_schema"] = dict(function.get("parameters") or {"type": "object", "properties": {}})
        converted.append(spec)
    return converted


def _append(turns: list[dict[str, Any]], role: str, content: str | list[Block]) -> None:
    if turns and turns[-1]["role"] == role:
        turns[-1]["content"] = _blocks(turns[-1]["content"]) + _blocks(content)
    else:
        turns.append({"role": role, "content": content})


def _blocks(content: str | list[Block]) -> list[Block]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def _assistant_blocks(message: Message) -> str | list[Block]:
    text = _text_of(message.get("content"))
    calls = message.get("tool_calls") or []
    if not calls:
        return text
    blocks: list[Block] = [{"type": "text", "text": text}] if text else []
    for call in calls:
        function = call.get("function") or {}
        arguments = function.get("arguments")
        if not isinstance(arguments, Mapping):
            arguments = parse_arguments(str(arguments or "")) or {}
        blocks.append(
            {"type": "tool_use", "id": call.get("id"), "name": function.get("name"), "input": dict(arguments)}
        )
    return blocks


def _user_content(content: Any) -> str | list[Block]:
    if content is None or isinstance(content, str):
        return content or ""
    return [_part(part) for part in content]


def _part(part: Any) -> Block:
    """One OpenAI content part (text, image_url) as an Anthropic block; anything else passes as it is."""
    if not isinstance(part, Mapping):
        return {"type": "text", "text": part if isinstance(part, str) else json.dumps(part)}
    if part.get("type") == "image_url":
        image = part.get("image_url")
        url = str(image.get("url") if isinstance(image, Mapping) else image)
        if url.startswith("data:") and ";base64," in url:
            media_type, data = url[5:].split(";base64,", 1)
            return {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}}
        return {"type": "image", "source": {"type": "url", "url": url}}
    if part.get("type") == "file":  # OpenAI's file part (a PDF as a data URL): a document block
        file = part.get("file")
        data_url = str(file.get("file_data") or "") if isinstance(file, Mapping) else ""
        if data_url.startswith("data:") and ";base64," in data_url:
            media_type, data = data_url[5:].split(";base64,", 1)
            return {"type": "document", "source": {"type": "base64", "media_type": media_type, "data": data}}
    return dict(part)


def _text_of(content: Any) -> str:
    if content is None or isinstance(content, str):
        return content or ""
    return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
