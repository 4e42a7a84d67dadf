"""`MeshProviderModel`: a model served by a provider agent of the mesh (MCP Mesh's `@mesh.llm_provider`).

Each turn is one call of the provider's tool with `{"request": MeshLlmRequest}`. The tools go without
`_mesh_endpoint`, so the provider answers one model turn (text or `tool_calls`) and this agent runs the
tools itself, through its own proxies and callbacks. The provider is the one the registry names in
`llm_providers[tool]`, swapped in place when the topology changes.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any, cast

from ..errors import ToolExecutionError
from ..injectables import McpMeshTool
from ..specs import Selector
from .loop import ToolLoop
from .model import LlmIterationLimit, LlmModel, LlmProviderError, LlmProviderUnavailable
from .types import LlmToolCall, LlmTurn, Message
from .vendors._openai_media import openai_messages

__all__ = ["STREAM_SUFFIX", "MeshProviderModel", "buffered_name", "parse_frame", "parse_provider_answer"]

logger = logging.getLogger("mesh_framework.llm")

STREAM_SUFFIX = "_stream"  # a provider's stream tool is its tool's name with this suffix


def _tool_calls(raw: Any) -> tuple[LlmToolCall, ...]:
    calls: list[LlmToolCall] = []
    for index, entry in enumerate(raw if isinstance(raw, list) else []):
        if not isinstance(entry, Mapping):
            continue
        nested = entry.get("function")
        function: Mapping[str, Any] = nested if isinstance(nested, Mapping) else entry
        name = str(function.get("name") or "")
        arguments = function.get("arguments", "{}")
        if isinstance(arguments, Mapping):
            parsed: Mapping[str, Any] | None = dict(arguments)
            text = json.dumps(arguments)
        else:
            text = str(arguments or "{}")
            try:
                value = json.loads(text)
                parsed = value if isinstance(value, dict) else None
            except ValueError:
                parsed = None
        calls.append(LlmToolCall(str(entry.get("id") or f"call_{index}"), name, parsed, text))
    return tuple(calls)


def parse_provider_answer(answer: Any, *, model: str = "") -> LlmTurn:
    """Every answer shape mcp-mesh providers send: an assistant-message dict (with `_mesh_usage`,
    `_mesh_stop_reason`, `tool_calls`), a JSON string of one, or plain text."""
    if isinstance(answer, str):
        try:
            decoded = json.loads(answer)
        except ValueError:
            return LlmTurn(content=answer, model=model)
        if not (isinstance(decoded, dict) and ("role" in decoded or "_mesh_usage" in decoded)):
            return LlmTurn(content=answer, model=model)
        answer = decoded
    if not isinstance(answer, Mapping):
        return LlmTurn(content=json.dumps(answer), model=model)
    raw_usage = answer.get("_mesh_usage")
    usage: Mapping[str, Any] = raw_usage if isinstance(raw_usage, Mapping) else {}
    content = answer.get("content")
    return LlmTurn(
        content=content
        if isinstance(content, str)
        else (json.dumps(content) if content is not None else None),
        tool_calls=_tool_calls(answer.get("tool_calls")),
        model=str(usage.get("model") or model),
        input_tokens=int(usage.get("prompt_tokens") or usage.get("input_tokens") or 0),
        output_tokens=int(usage.get("completion_tokens") or usage.get("output_tokens") or 0),
        stop_reason=answer.get("_mesh_stop_reason") or answer.get("stop_reason"),
    )


class MeshProviderModel(LlmModel):
    """One model turn per call of the provider agent's tool; `proxy` is swapped by topology events."""

    def __init__(self, selector: Selector, *, tool: str, caller: str, model: str | None = None) -> None:
        self.selector = selector
        self.tool = tool
        self.caller = caller
        self.model_override = model
        self.proxy: McpMeshTool | None = None
        self.name = f"mesh:{selector.capability}"

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] = (),
        params: Mapping[str, Any] | None = None,
        response_schema: Mapping[str, Any] | None = None,
        parallel_tool_calls: bool | None = None,
    ) -> LlmTurn:
        proxy = self._proxy()
        request = self._request(messages, tools, params, parallel_tool_calls, max_iterations=1)
        if response_schema is not None:
            model_params = request["model_params"]
            model_params["output_schema"] = dict(response_schema)
            model_params["output_type_name"] = str(response_schema.get("title") or "Output")
            model_params["output_mode"] = "strict"
        try:
            answer = await proxy.call_tool(buffered_name(proxy.function_name), {"request": request})
        except ToolExecutionError as exc:
            raise LlmProviderError(
                f"LLM tool '{self.tool}': provider {proxy.agent_id} failed: {exc.message}"
            ) from None
        return parse_provider_answer(answer, model=self.name)

    async def stream_loop(self, loop: ToolLoop, messages: list[Message]) -> AsyncGenerator[str]:
        """`loop` run by the provider agent (its `<tool>_stream` tool), the answer's text as it streams.

        The provider calls the tools at their endpoints, so this works when every tool offered is a mesh
        tool; with other tools (local callbacks, catalog servers) the loop runs here, one buffered
        provider turn per iteration, and the answer comes in one piece."""
        tools = _mesh_tools(loop)
        if tools is None:
            async with contextlib.aclosing(loop.stream(messages)) as chunks:
                async for chunk in chunks:
                    yield chunk
            return
        proxy = self._proxy()
        request = self._request(
            messages, tools, loop.params, loop.parallel_tool_calls, max_iterations=loop.max_iterations
        )
        name = (
            proxy.function_name
            if proxy.function_name.endswith(STREAM_SUFFIX)
            else f"{proxy.function_name}{STREAM_SUFFIX}"
        )
        loop.usage.model = self.name
        started = time.perf_counter()
        sent, stop = 0, None  # stop: the end frame's stop reason ("" for none), once it came
        try:
            stream = cast(AsyncGenerator[str], proxy.stream_tool(name, {"request": request}))
            async with contextlib.aclosing(stream) as chunks:
                async for chunk in chunks:
                    if stop is not None:
                        continue  # after the end frame: read to the call's result, so the call completes
                    frame = parse_frame(chunk)
                    if frame is None:  # a provider that does not frame its chunks
                        sent += 1
                        yield chunk
                    elif frame.get("_mesh_frame") == "end":
                        stop = str(frame.get("stop_reason") or "")
                    elif isinstance(frame.get("content"), str) and frame["content"]:
                        sent += 1
                        yield frame["content"]
        except ToolExecutionError as exc:
            if stop is None and (sent or not _unknown_tool(exc.message)):
                raise LlmProviderError(
                    f"LLM tool '{self.tool}': provider {proxy.agent_id} failed: {exc.message}"
                ) from None
        finally:
            loop.usage.latency_ms = (time.perf_counter() - started) * 1000
        if stop is not None:
            if stop == "max_iterations":
                raise LlmIterationLimit(self._exhausted(loop))
            loop.usage.iterations += 1  # the provider answered (its loop: one, as buffered)
            return
        logger.info(
            "LLM tool '%s': provider %s has no tool '%s'; asking its buffered tool, the answer comes whole",
            self.tool,
            proxy.agent_id,
            name,
        )
        try:
            answer = await proxy.call_tool(buffered_name(name), {"request": request})
        except ToolExecutionError as exc:
            raise LlmProviderError(
                f"LLM tool '{self.tool}': provider {proxy.agent_id} failed: {exc.message}"
            ) from None
        turn = parse_provider_answer(answer, model=self.name)
        if turn.stop_reason == "max_iterations":
            raise LlmIterationLimit(self._exhausted(loop))
        loop.usage.add(turn)
        if turn.content:
            yield turn.content

    def _proxy(self) -> McpMeshTool:
        proxy = self.proxy
        if proxy is None:
            raise LlmProviderUnavailable(
                f"LLM tool '{self.tool}': no provider agent matches {self.selector.to_wire()} right now; "
                "start one (an @mesh_llm_provider agent) or change the selector",
                capability=self.selector.capability,
            )
        return proxy

    def unavailable(self) -> str | None:
        return self.selector.capability if self.proxy is None else None

    def _request(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]],
        params: Mapping[str, Any] | None,
        parallel_tool_calls: bool | None,
        *,
        max_iterations: int,
    ) -> dict[str, Any]:
        model_params: dict[str, Any] = dict(params or {})
        model_params["max_iterations"] = max_iterations
        if self.model_override:
            model_params["model"] = self.model_override
        if parallel_tool_calls is not None:
            model_params["parallel_tool_calls"] = parallel_tool_calls
        return {
            "messages": openai_messages(messages),  # images from tools as MCP Mesh sends them
            "tools": list(tools),
            "model_params": model_params,
            "context": None,
            "request_id": None,
            "caller_agent": self.caller,
        }

    def _exhausted(self, loop: ToolLoop) -> str:
        return (
            f"LLM tool '{self.tool}': the provider reached max_iterations={loop.max_iterations} without a "
            "final answer; raise max_iterations or simplify the task"
        )


def buffered_name(name: str) -> str:
    """The provider's buffered tool for a name that may be its stream tool (`chat_stream` -> `chat`)."""
    return name[: -len(STREAM_SUFFIX)] if name.endswith(STREAM_SUFFIX) else name


def parse_frame(chunk: str) -> dict[str, Any] | None:
    """A stream frame (`{"_mesh_frame": "chunk" | "end", ...}`), or None for plain text."""
    if not chunk.startswith("{"):
        return None
    try:
        value = json.loads(chunk)
    except ValueError:
        return None
    if isinstance(value, dict) and value.get("_mesh_frame") in ("chunk", "end"):
        return value
    return None


def _unknown_tool(message: str) -> bool:
    lowered = message.lower()
    return "unknown tool" in lowered or "tool not found" in lowered


def _mesh_tools(loop: ToolLoop) -> list[dict[str, Any]] | None:
    """The loop's tools with `_mesh_endpoint`, for the provider to call; None when one is not a mesh tool
    reachable over HTTP under the name the model is given."""
    from ..callbacks.mesh import MeshToolCallback

    tools: list[dict[str, Any]] = []
    for spec, callback in zip(loop.specs, loop.tools.values(), strict=True):
        endpoint = getattr(getattr(callback, "proxy", None), "endpoint", None)
        if (
            not isinstance(callback, MeshToolCallback)
            or not isinstance(endpoint, str)
            or not endpoint.startswith(("http://", "https://"))
            or callback.proxy.function_name != callback.definition.name
        ):
            return None
        function = {**spec["function"], "_mesh_endpoint": endpoint}
        tools.append({"type": "function", "function": function})
    return tools
