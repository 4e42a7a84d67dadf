"""A message to an A2A skill as its tool's arguments, and the tool's result as the task's text.

A message's text parts are joined and its data part read as JSON (whole numbers as ints again); a plain
user message of text parts is read into a proto without protobuf's JSON parser (`read_message`), the
cheap path `direct.py` and the MCP Mesh dialect take. The task's size limit is worded here too.
"""

from __future__ import annotations

from typing import Any

from a2a.types import Message, Part, Role
from google.protobuf.json_format import MessageToDict  # type: ignore[import-untyped]

from .requests import BadRequest, read_json
from .skills import A2aSkill

__all__ = [
    "PLAIN_MESSAGE_KEYS",
    "arguments_of",
    "message_input",
    "read_message",
    "result_text",
    "too_large",
]


def arguments_of(skill: A2aSkill, text: str, data: dict[str, Any] | None) -> dict[str, Any]:
    """A message as the tool's arguments: a data part, a JSON object text, or the text as the tool's one
    required parameter. Raises ValueError saying what the skill expects."""
    if data is not None:
        return data
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            parsed = read_json(stripped)
        except BadRequest:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    schema = skill.wrapper.descriptor["inputSchema"]
    properties = list(schema.get("properties", {}))
    required = schema.get("required", [])
    target = required[0] if len(required) == 1 else properties[0] if len(properties) == 1 else None
    if target is None:
        raise ValueError(
            f"skill '{skill.id}' takes {sorted(properties)}: send them as a data part or a JSON object text"
        )
    return {target: text}


def _integral(value: Any) -> Any:
    """A data part's JSON as sent: protobuf's Struct holds every number as a double (3 arrives as 3.0),
    and a tool's integer parameter takes no 3.0, so a whole number is an int again."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {key: _integral(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_integral(item) for item in value]
    return value


def message_input(message: Message | None) -> tuple[str, dict[str, Any] | None]:
    """A message's text parts joined and its (last) data part as JSON, None without one."""
    text: list[str] = []
    data: dict[str, Any] | None = None
    for part in message.parts if message is not None else []:
        if part.HasField("text"):
            text.append(part.text)
        elif part.HasField("data"):
            value = _integral(MessageToDict(part.data))
            if isinstance(value, dict):
                data = value
    return "".join(text), data


def result_text(result: dict[str, Any]) -> str:
    """A CallToolResult's text content joined: what the task's artifact or failure message says."""
    return "".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")


def too_large(size: int, limit: int) -> str:
    """Why a task failed for a result larger than `a2a.max_task_bytes`, and how to fix it."""
    return (
        f"the result is larger than a2a.max_task_bytes ({size} > {limit} bytes): the task keeps no more; "
        "raise a2a.max_task_bytes or return less (a file: save it to the media store and return its URI)"
    )


PLAIN_MESSAGE_KEYS = frozenset({"messageId", "role", "parts", "metadata", "contextId"})


def read_message(wire: dict[str, Any]) -> Message | None:
    """A user message of text parts as a proto, without protobuf's JSON parser; None for anything else."""
    parts = wire.get("parts")
    if (
        not wire.keys() <= PLAIN_MESSAGE_KEYS
        or wire.get("role") != "ROLE_USER"
        or not isinstance(wire.get("messageId"), str)
        or not isinstance(parts, list)
        or not all(isinstance(p, dict) and p.keys() == {"text"} and isinstance(p["text"], str) for p in parts)
        or not isinstance(wire.get("metadata", {}), dict)
        or not isinstance(wire.get("contextId", ""), str)
    ):
        return None
    message = Message(
        message_id=wire["messageId"],
        role=Role.ROLE_USER,
        parts=[Part(text=p["text"]) for p in parts],
        context_id=wire.get("contextId", ""),
    )
    if wire.get("metadata"):
        message.metadata.update(wire["metadata"])
    return message
