"""`ScriptedLlm`: a model that plays scripted turns, for tests (`app.override(LlmModel, ScriptedLlm([...]))`).

Each turn is final text (`"The answer is 5"`), text in deltas (`ScriptedLlm.deltas("The ", "answer")`: what
`stream()` yields one by one), a tool call (`ScriptedLlm.call("add", a=2, b=3)`), several at once (a list
of calls), or a function of the request returning one of those. Every request is recorded,
so a test can check which tools were offered and what the tools answered.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .model import LlmError, LlmModel
from .types import LlmToolCall, LlmTurn, Message

__all__ = ["Deltas", "ScriptedLlm", "ScriptedRequest"]


class Deltas(tuple[str, ...]):
    """A final answer that `stream()` gives in these pieces (`complete()` gives them joined)."""


Turn = str | Deltas | LlmToolCall | Sequence[LlmToolCall] | Callable[["ScriptedRequest"], Any]


@dataclass
class ScriptedRequest:
    """What the model was asked: the transcript, the tools offered (OpenAI format) and the parameters."""

    messages: list[Message]
    tools: list[dict[str, Any]]
    params: dict[str, Any]
    response_schema: Mapping[str, Any] | None = None
    tool_names: list[str] = field(default_factory=list)

    def tool_results(self) -> list[str]:
        """The contents of the tool results sent back since the model's last turn."""
        results: list[str] = []
        for message in reversed(self.messages):
            if message.get("role") != "tool":
                break
            results.insert(0, str(message.get("content")))
        return results


class ScriptedLlm(LlmModel):
    """Plays `turns` in order; a request after the last turn is an error naming how many were scripted."""

    def __init__(self, turns: Sequence[Turn], *, name: str = "scripted") -> None:
        self.turns = list(turns)
        self.requests: list[ScriptedRequest] = []
        self.calls: list[LlmToolCall] = []
        self.name = name
        self._ids = 0

    @staticmethod
    def call(tool: str, /, **arguments: Any) -> LlmToolCall:
        """A scripted tool call."""
        return LlmToolCall(id="", name=tool, arguments=arguments, raw_arguments=json.dumps(arguments))

    @staticmethod
    def deltas(*pieces: str) -> Deltas:
        """A final answer streamed in these pieces."""
        return Deltas(pieces)

    @staticmethod
    def raw_call(tool: str, raw_arguments: str) -> LlmToolCall:
        """A tool call whose arguments are the given text (invalid JSON, to test the loop)."""
        return LlmToolCall(id="", name=tool, arguments=None, raw_arguments=raw_arguments)

    @property
    def called_tools(self) -> list[str]:
        """Every tool name the script asked for, in order."""
        return [call.name for call in self.calls]

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] = (),
        params: Mapping[str, Any] | None = None,
        response_schema: Mapping[str, Any] | None = None,
        parallel_tool_calls: bool | None = None,
    ) -> LlmTurn:
        return self._play(messages, tools, params, response_schema)[0]

    async def stream(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] = (),
        params: Mapping[str, Any] | None = None,
        response_schema: Mapping[str, Any] | None = None,
        parallel_tool_calls: bool | None = None,
    ) -> AsyncGenerator[str | LlmTurn]:
        turn, pieces = self._play(messages, tools, params, response_schema)
        for piece in pieces:
            yield piece
        yield turn

    def _play(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]],
        params: Mapping[str, Any] | None,
        response_schema: Mapping[str, Any] | None,
    ) -> tuple[LlmTurn, tuple[str, ...]]:
        """The next turn, and the pieces `stream()` gives of its text."""
        request = ScriptedRequest(
            messages=[dict(m) for m in messages],
            tools=[dict(t) for t in tools],
            params=dict(params or {}),
            response_schema=response_schema,
            tool_names=[t["function"]["name"] for t in tools],
        )
        self.requests.append(request)
        index = len(self.requests) - 1
        if index >= len(self.turns):
            raise LlmError(
                f"ScriptedLlm: request {index + 1} but only {len(self.turns)} turn(s) were scripted"
            )
        turn = self.turns[index]
        if callable(turn) and not isinstance(turn, LlmToolCall):
            turn = turn(request)
        if isinstance(turn, str | Deltas):
            pieces = tuple(turn) if isinstance(turn, Deltas) else ((turn,) if turn else ())
            content = "".join(pieces)
            answer = LlmTurn(
                content=content,
                model=self.name,
                input_tokens=_count(messages),
                output_tokens=len(content) // 4,
            )
            return answer, pieces
        calls = [turn] if isinstance(turn, LlmToolCall) else list(turn)
        numbered = []
        for call in calls:
            self._ids += 1
            numbered.append(
                LlmToolCall(call.id or f"call_{self._ids}", call.name, call.arguments, call.raw_arguments)
            )
        self.calls.extend(numbered)
        answer = LlmTurn(
            content=None, tool_calls=tuple(numbered), model=self.name, input_tokens=_count(messages)
        )
        return answer, ()


def _count(messages: Sequence[Message]) -> int:
    return sum(len(str(m.get("content") or "")) for m in messages) // 4
