"""The tool loop: ask the model, run the tools it asks for, hand back their results, until it answers.

A failing tool (or one the model invents, or arguments that are not JSON) is reported back to the model
as that tool's result and the loop goes on. A structured answer that does not validate gets one repair
turn carrying the validation error, then `LlmOutputError`. Reaching `max_iterations` is an `LlmError`
naming the tool and the transcript length.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError

from .. import observation
from ..callbacks.definition import ToolCallback
from ..errors import ToolExecutionError
from ..tools.context import ToolContext
from .media import media_note, tool_result_content
from .model import LlmIterationLimit, LlmModel, LlmOutputError, LlmProviderError
from .types import LlmToolCall, LlmTurn, LlmUsage, Message, tool_spec

__all__ = ["ToolLoop", "json_body", "result_text"]

logger = logging.getLogger("mesh_framework.llm")


def result_text(result: Mapping[str, Any]) -> str:
    """A `CallToolResult` as the text a model reads: its text blocks, else its structured content as JSON."""
    texts = [str(c.get("text", "")) for c in result.get("content") or [] if c.get("type") == "text"]
    text = "\n".join(t for t in texts if t)
    if not text and result.get("structuredContent") is not None:
        text = json.dumps(result["structuredContent"])
    if result.get("isError"):
        return f"Error: {text or 'the tool reported an error'}"
    return text


class ToolLoop:
    """One run of the loop for one request. `tools` are the callbacks offered to the model, by name."""

    def __init__(
        self,
        model: LlmModel,
        tools: Sequence[ToolCallback],
        *,
        max_iterations: int,
        params: Mapping[str, Any] | None = None,
        parallel_tool_calls: bool | None = None,
        context: ToolContext | None = None,
        label: str = "llm",
    ) -> None:
        self.model = model
        self.tools = {callback.definition.name: callback for callback in tools}
        self.specs = [
            tool_spec(
                c.definition.name,
                media_note(c.definition.description, c.definition.input_schema),
                c.definition.input_schema,
            )
            for c in tools
        ]
        self.max_iterations = max_iterations
        self.params = dict(params or {})
        self.parallel_tool_calls = parallel_tool_calls
        self.context = context
        self.label = label
        self.usage = LlmUsage()

    async def run(
        self, messages: list[Message], output: Any = None, *, schema: Mapping[str, Any] | None = None
    ) -> Any:
        """The final answer: text, or a value of type `output` (validated). `messages` grows in place.

        `schema` asks the model for JSON of that schema without validating it here (a provider agent
        answering for a consumer that validates)."""
        started = time.perf_counter()
        adapter = TypeAdapter(output) if output is not None and output is not str else None
        if adapter is not None:
            schema = adapter.json_schema()
        repaired = False
        try:
            for iteration in range(self.max_iterations):
                with observation.tracer.llm_iteration(self.label, iteration) as span:
                    turn = await self.model.complete(
                        messages,
                        tools=self.specs,
                        params=self.params,
                        response_schema=schema,
                        parallel_tool_calls=self.parallel_tool_calls,
                    )
                    if await self._took(turn, messages, span):
                        continue
                answer = turn.content or ""
                if adapter is None:
                    return answer
                try:
                    return adapter.validate_json(json_body(answer))
                except ValidationError as exc:
                    if repaired:
                        raise LlmOutputError(
                            f"{self.label}: the model's answer does not match {_name(output)} after a repair "
                            f"turn ({_first_error(exc)})",
                            raw=answer,
                        ) from None
                    repaired = True
                    messages.append({"role": "user", "content": _repair_request(output, exc)})
            raise LlmIterationLimit(self._limit_text(messages))
        finally:
            self.usage.latency_ms = (time.perf_counter() - started) * 1000

    async def stream(self, messages: list[Message]) -> AsyncGenerator[str]:
        """The final answer's text as the model streams it. Iterations that call tools are run whole;
        text the model sends before it starts a tool call passes as it comes (it cannot be known not to
        be the answer until the call begins). `messages` grows in place."""
        started = time.perf_counter()
        try:
            for iteration in range(self.max_iterations):
                with observation.tracer.llm_iteration(self.label, iteration) as span:
                    turn: LlmTurn | None = None
                    events = self.model.stream(
                        messages,
                        tools=self.specs,
                        params=self.params,
                        parallel_tool_calls=self.parallel_tool_calls,
                    )
                    async with contextlib.aclosing(events):
                        async for event in events:
                            if isinstance(event, str):
                                yield event
                            else:
                                turn = event
                    if turn is None:
                        raise LlmProviderError(f"{self.label}: the model's stream ended without its turn")
                    if await self._took(turn, messages, span):
                        continue
                return
            raise LlmIterationLimit(self._limit_text(messages))
        finally:
            self.usage.latency_ms = (time.perf_counter() - started) * 1000

    async def _took(self, turn: LlmTurn, messages: list[Message], span: Any) -> bool:
        """Records `turn`; runs the tools it asks for and answers with their results (True), if any."""
        self.usage.add(turn)
        messages.append(turn.to_message())
        span.set("gen_ai.usage.input_tokens", turn.input_tokens)
        span.set("gen_ai.usage.output_tokens", turn.output_tokens)
        span.set("mesh.llm.tool_calls", len(turn.tool_calls))
        span.set("gen_ai.response.model", turn.model)
        if not turn.tool_calls:
            return False
        results = await asyncio.gather(*(self._call(call) for call in turn.tool_calls))
        for call, text in zip(turn.tool_calls, results, strict=True):
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
        return True

    def _limit_text(self, messages: list[Message]) -> str:
        return (
            f"{self.label}: no final answer within max_iterations={self.max_iterations} "
            f"(the transcript has {len(messages)} messages); raise max_iterations or simplify the task"
        )

    async def _call(self, call: LlmToolCall) -> str | list[dict[str, Any]]:
        callback = self.tools.get(call.name)
        if callback is None:
            offered = ", ".join(sorted(self.tools)) or "none"
            return f"Error: there is no tool named '{call.name}' (tools: {offered})"
        if call.arguments is None:
            return f"Error: the arguments of '{call.name}' are not a JSON object: {call.raw_arguments[:200]}"
        try:
            result = await callback.call_result(call.arguments, self.context)
            return await tool_result_content(result, result_text(result))  # images/PDFs as parts
        except ToolExecutionError as exc:
            logger.info("%s: tool '%s' failed: %s", self.label, call.name, exc.message)
            return f"Error: {exc.message}"
        except Exception as exc:
            logger.warning("%s: tool '%s' raised %s: %s", self.label, call.name, type(exc).__name__, exc)
            return f"Error: {type(exc).__name__}: {exc}"


def json_body(answer: str) -> str:
    """The JSON of an answer, without the Markdown fence some models wrap it in."""
    text = answer.strip()
    if text.startswith("```"):
        text = text.split("\n", 1)[1] if "\n" in text else ""
        text = text.rsplit("```", 1)[0]
    return text.strip()


def _name(output: Any) -> str:
    return getattr(output, "__name__", repr(output))


def _first_error(exc: ValidationError) -> str:
    error = exc.errors(include_url=False)[0]
    where = ".".join(str(p) for p in error["loc"]) or "(answer)"
    return f"{where}: {error['msg']}"


def _repair_request(output: Any, exc: ValidationError) -> str:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '(answer)'}: {e['msg']}"
        for e in exc.errors(include_url=False)
    )
    schema = json.dumps(TypeAdapter(output).json_schema())
    return (
        f"Your answer is not valid {_name(output)} JSON ({problems}). Answer again with only a JSON value "
        f"matching this schema: {schema}"
    )
