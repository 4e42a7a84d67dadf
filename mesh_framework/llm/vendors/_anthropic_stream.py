"""A Messages API stream (`message_start`, `content_block_*`, `message_delta` events) as text deltas and
the turn they make up.

Text deltas pass as they come until the first `tool_use` block starts; a tool's input arrives as JSON
fragments (`input_json_delta`) put together when its block ends.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from ..types import LlmToolCall, LlmTurn
from ._common import parse_arguments

__all__ = ["anthropic_deltas"]


async def anthropic_deltas(events: AsyncIterator[Any], model: str) -> AsyncGenerator[str | LlmTurn]:
    texts: list[str] = []
    calls: list[LlmToolCall] = []
    open_calls: dict[int, tuple[str, str, list[str]]] = {}
    stop_reason: str | None = None
    input_tokens = output_tokens = 0
    async for event in events:
        kind = event.type
        if kind == "message_start":
            model = event.message.model or model
            input_tokens = event.message.usage.input_tokens
            output_tokens = event.message.usage.output_tokens
        elif kind == "content_block_start":
            block = event.content_block
            if block.type == "tool_use":
                open_calls[event.index] = (block.id, block.name, [])
        elif kind == "content_block_delta":
            delta = event.delta
            if delta.type == "text_delta" and delta.text:
                texts.append(delta.text)
                if not open_calls and not calls:
                    yield delta.text
            elif delta.type == "input_json_delta" and event.index in open_calls:
                open_calls[event.index][2].append(delta.partial_json)
        elif kind == "content_block_stop" and event.index in open_calls:
            call_id, name, parts = open_calls.pop(event.index)
            raw = "".join(parts) or "{}"
            calls.append(
                LlmToolCall(id=call_id, name=name, arguments=parse_arguments(raw), raw_arguments=raw)
            )
        elif kind == "message_delta":
            stop_reason = event.delta.stop_reason or stop_reason
            output_tokens = event.usage.output_tokens
            if event.usage.input_tokens:
                input_tokens = event.usage.input_tokens
    yield LlmTurn(
        content="".join(texts) if texts else None,
        tool_calls=tuple(calls),
        model=model,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        stop_reason=stop_reason,
    )
