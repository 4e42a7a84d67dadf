"""How a scripted turn looks on each vendor's wire: OpenAI Chat Completions and Anthropic Messages."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .turns import Turn

__all__ = ["ANTHROPIC", "OPENAI", "Wire"]

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
}


@dataclass(frozen=True)
class Wire:
    name: str
    paths: tuple[str, ...]
    base_path: str

    def answer(self, turn: Turn, body: dict[str, Any], number: int) -> dict[str, Any]:
        model = turn.model or str(body.get("model", "fake-model"))
        if self.name == "openai":
            return _openai_answer(turn, model, number)
        return _anthropic_answer(turn, model, number)

    def error(self, status: int, message: str) -> dict[str, Any]:
        kind = _ERROR_TYPES.get(status, "api_error")
        if self.name == "openai":
            return {"error": {"message": message, "type": kind, "param": None, "code": None}}
        return {"type": "error", "error": {"type": kind, "message": message}}


# the last path is Azure OpenAI's (`AsyncAzureOpenAI` with `azure_endpoint` = the server's url)
OPENAI = Wire(
    "openai",
    ("/v1/chat/completions", "/chat/completions", "/openai/deployments/{deployment}/chat/completions"),
    "/v1",
)
ANTHROPIC = Wire("anthropic", ("/v1/messages",), "")


def _openai_answer(turn: Turn, model: str, number: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text}
    if turn.calls:
        message["tool_calls"] = [
            {
                "id": call.id or f"call_{number}_{index}",
                "type": "function",
                "function": {"name": call.name, "arguments": call.raw},
            }
            for index, call in enumerate(turn.calls)
        ]
    return {
        "id": f"chatcmpl-fake-{number}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": turn.stop_reason or ("tool_calls" if turn.calls else "stop"),
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": turn.input_tokens,
            "completion_tokens": turn.output_tokens,
            "total_tokens": turn.input_tokens + turn.output_tokens,
        },
    }


def _anthropic_answer(turn: Turn, model: str, number: int) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
    for index, call in enumerate(turn.calls):
        try:
            arguments: Any = json.loads(call.raw)
        except ValueError:
            arguments = call.raw  # never on the real wire; lets tests see how the adapter copes
        content.append(
            {
                "type": "tool_use",
                "id": call.id or f"toolu_{number}_{index}",
                "name": call.name,
                "input": arguments,
            }
        )
    return {
        "id": f"msg_fake_{number}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": turn.stop_reason or ("tool_use" if turn.calls else "end_turn"),
        "stop_sequence": None,
        "usage": {"input_tokens": turn.input_tokens, "output_tokens": turn.output_tokens},
    }
