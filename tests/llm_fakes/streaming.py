"""A scripted turn as the vendors stream it: Server-Sent Events in OpenAI's `chat.completion.chunk` shape
(with `stream_options.include_usage`) or Anthropic's Messages events, one text delta per scripted chunk.

A turn's `chunks` are its text deltas (its `text` once when it has none). `fail_after=N` ends the stream
after N deltas, with the vendor's error event (`fail="error"`) or by dropping the connection
(`fail="drop"`); `hold=True` keeps the stream open after the deltas until the client leaves;
`pause_after=N` yields "pause" after N deltas, where the server waits for the turn's `resume` event.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from .turns import Turn

__all__ = ["error_event", "sse_events"]


def sse_events(wire: str, turn: Turn, body: dict[str, Any], number: int) -> Iterator[str | None]:
    """The SSE frames of `turn`; None where the stream fails (`fail_after`)."""
    model = turn.model or str(body.get("model", "fake-model"))
    if wire == "openai":
        usage = bool((body.get("stream_options") or {}).get("include_usage"))
        yield from _openai(turn, model, number, usage)
    else:
        yield from _anthropic(turn, model, number)


def _deltas(turn: Turn) -> tuple[str, ...]:
    return turn.chunks or ((turn.text,) if turn.text else ())


def _openai(turn: Turn, model: str, number: int, usage: bool) -> Iterator[str | None]:
    head = {"id": f"chatcmpl-fake-{number}", "object": "chat.completion.chunk", "created": 1_700_000_000}
    head["model"] = model

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return "data: " + json.dumps({**head, "choices": [choice]}) + "\n\n"

    yield chunk({"role": "assistant", "content": ""})
    for sent, text in enumerate(_deltas(turn)):
        if turn.fail_after is not None and sent == turn.fail_after:
            yield None
            return
        if sent == turn.pause_after:
            yield "pause"
        yield chunk({"content": text})
    if turn.fail_after is not None and turn.fail_after >= len(_deltas(turn)) and not turn.hold:
        yield None
        return
    if turn.hold:
        yield "hold"
    for index, call in enumerate(turn.calls):
        first = {"index": index, "id": call.id or f"call_{number}_{index}", "type": "function"}
        first["function"] = {"name": call.name, "arguments": ""}
        yield chunk({"tool_calls": [first]})
        raw = call.raw
        for start in range(0, len(raw), 8):  # arguments arrive in pieces, as the API sends them
            piece = {"index": index, "function": {"arguments": raw[start : start + 8]}}
            yield chunk({"tool_calls": [piece]})
    yield chunk({}, turn.stop_reason or ("tool_calls" if turn.calls else "stop"))
    if usage:
        total = turn.input_tokens + turn.output_tokens
        counts = {"prompt_tokens": turn.input_tokens, "completion_tokens": turn.output_tokens}
        yield (
            "data: "
            + json.dumps({**head, "choices": [], "usage": {**counts, "total_tokens": total}})
            + "\n\n"
        )
    yield "data: [DONE]\n\n"


def _event(name: str, data: dict[str, Any]) -> str:
    return f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n"


def _anthropic(turn: Turn, model: str, number: int) -> Iterator[str | None]:
    message = {
        "id": f"msg_fake_{number}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": turn.input_tokens, "output_tokens": 1},
    }
    yield _event("message_start", {"message": message})
    index = 0
    deltas = _deltas(turn)
    if deltas:
        yield _event("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}})
        for sent, text in enumerate(deltas):
            if turn.fail_after is not None and sent == turn.fail_after:
                yield None
                return
            if sent == turn.pause_after:
                yield "pause"
            yield _event("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": text}})
        if turn.fail_after is not None and turn.fail_after >= len(deltas) and not turn.hold:
            yield None
            return
        if turn.hold:
            yield "hold"
        yield _event("content_block_stop", {"index": 0})
        index = 1
    for offset, call in enumerate(turn.calls):
        block = {"type": "tool_use", "id": call.id or f"toolu_{number}_{offset}", "name": call.name}
        yield _event("content_block_start", {"index": index, "content_block": {**block, "input": {}}})
        raw = call.raw
        for start in range(0, len(raw), 8):
            delta = {"type": "input_json_delta", "partial_json": raw[start : start + 8]}
            yield _event("content_block_delta", {"index": index, "delta": delta})
        yield _event("content_block_stop", {"index": index})
        index += 1
    stop = turn.stop_reason or ("tool_use" if turn.calls else "end_turn")
    delta = {"delta": {"stop_reason": stop, "stop_sequence": None}}
    yield _event("message_delta", {**delta, "usage": {"output_tokens": turn.output_tokens}})
    yield _event("message_stop", {})


def error_event(wire: str, message: str) -> str:
    """The event a vendor sends when it fails mid-stream."""
    if wire == "openai":
        return "data: " + json.dumps({"error": {"message": message, "type": "server_error"}}) + "\n\n"
    return _event("error", {"error": {"type": "overloaded_error", "message": message}})
