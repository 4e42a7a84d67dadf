"""The data of one LLM exchange: messages (OpenAI chat format, the lingua franca of MCP Mesh), tool calls,
one model turn and the usage of a whole run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

from .._frozen import frozen, record

__all__ = ["LlmToolCall", "LlmTurn", "LlmUsage", "Message", "tool_spec"]

Message = dict[str, Any]
"""One chat message: `{"role": "system"|"user"|"assistant"|"tool", "content": ..., ...}` as OpenAI's Chat
Completions API has it (assistant `tool_calls`, tool `tool_call_id`)."""


@frozen
class LlmToolCall:
    """A tool the model asked for: `arguments` parsed (None when the model sent invalid JSON)."""

    id: str
    name: str
    arguments: Mapping[str, Any] | None
    raw_arguments: str = "{}"

    def to_message(self) -> dict[str, Any]:
        """The call as it appears in an assistant message's `tool_calls`."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.raw_arguments},
        }


@frozen
class LlmTurn:
    """One answer of the model: text and/or tool calls, with the tokens it cost."""

    content: str | None
    tool_calls: tuple[LlmToolCall, ...] = ()
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    stop_reason: str | None = None

    def to_message(self) -> Message:
        """The turn as the assistant message that goes back into the transcript."""
        message: Message = {"role": "assistant", "content": self.content or ""}
        if self.tool_calls:
            message["tool_calls"] = [call.to_message() for call in self.tool_calls]
        return message


@record(slots=True)
class LlmUsage:
    """What one `await llm(...)` cost: model, tokens summed over the iterations, latency in milliseconds."""

    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    iterations: int = 0
    latency_ms: float = 0.0
    tool_calls: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def add(self, turn: LlmTurn) -> None:
        self.model = turn.model or self.model
        self.input_tokens += turn.input_tokens
        self.output_tokens += turn.output_tokens
        self.iterations += 1
        self.tool_calls += len(turn.tool_calls)


def tool_spec(name: str, description: str, parameters: Mapping[str, Any]) -> dict[str, Any]:
    """A tool in OpenAI's function format, as models (and MCP Mesh's `MeshLlmRequest.tools`) take them."""
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": dict(parameters)},
    }
