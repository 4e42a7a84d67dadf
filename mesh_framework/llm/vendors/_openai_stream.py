"""A Chat Completions stream (`chat.completion.chunk`s) as text deltas and the turn they make up.

Text deltas pass as they come until the first tool-call delta; tool calls arrive in pieces (id and name
once, arguments in fragments at one `index`) and are put together at the end. Usage comes in the last
chunk when the request asked for it (`stream_options.include_usage`).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field

from openai.types.chat import ChatCompletionChunk

from ..types import LlmToolCall, LlmTurn
from ._common import parse_arguments

__all__ = ["openai_deltas"]


@dataclass(slots=True)
class _CallParts:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


async def openai_deltas(
    chunks: AsyncIterator[ChatCompletionChunk], model: str
) -> AsyncGenerator[str | LlmTurn]:
    texts: list[str] = []
    refusal: list[str] = []
    calls: dict[int, _CallParts] = {}
    stop_reason: str | None = None
    input_tokens = output_tokens = 0
    async for chunk in chunks:
        model = chunk.model or model
        if chunk.usage is not None:
            input_tokens, output_tokens = chunk.usage.prompt_tokens, chunk.usage.completion_tokens
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        stop_reason = choice.finish_reason or stop_reason
        delta = choice.delta
        for piece in delta.tool_calls or ():
            parts = calls.setdefault(piece.index, _CallParts())
            parts.id = piece.id or parts.id
            if piece.function is not None:
                parts.name = piece.function.name or parts.name
                if piece.function.arguments:
                    parts.arguments.append(piece.function.arguments)
        text = delta.content or delta.refusal
        if text:
            (texts if delta.content else refusal).append(text)
            if not calls:
                yield text
    content = "".join(texts) if texts else None
    if content is None and refusal:
        content, stop_reason = "".join(refusal), "refusal"
    tool_calls = tuple(
        LlmToolCall(id=parts.id, name=parts.name, arguments=parse_arguments(raw), raw_arguments=raw)
        for parts in (calls[index] for index in sorted(calls))
        if parts.name
        for raw in ("".join(parts.arguments),)
    )
    yield LlmTurn(
        content=content,
        tool_calls=tool_calls,
        model=model,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        stop_reason=stop_reason,
    )
