"""`MeshProviderModel`: a model served by a provider agent of the mesh (MCP Mesh's `@mesh.llm_provider`).

Each turn is one call of the provider's tool with `{"request": MeshLlmRequest}`. The tools go without
`_mesh_endpoint`, so the provider answers one model turn (text or `tool_calls`) and this agent runs the
tools itself, through its own proxies and callbacks. The provider is the one the registry names in
`llm_providers[tool]`, swapped in place when the topology changes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import ToolExecutionError
from ..injectables import McpMeshTool
from ..specs import Selector
from .model import LlmModel, LlmProviderError
from .types import LlmToolCall, LlmTurn, Message

__all__ = ["MeshProviderModel", "parse_provider_answer"]


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
        proxy = self.proxy
        if proxy is None:
            raise LlmProviderError(
                f"LLM tool '{self.tool}': no provider agent matches {self.selector.to_wire()} right now; "
                "start one (an @mesh_llm_provider agent) or change the selector"
            )
        model_params: dict[str, Any] = dict(params or {})
        model_params["max_iterations"] = 1  # one turn per call: this agent runs the tools itself
        if self.model_override:
            model_params["model"] = self.model_override
        if parallel_tool_calls is not None:
            model_params["parallel_tool_calls"] = parallel_tool_calls
        if response_schema is not None:
            model_params["output_schema"] = dict(response_schema)
            model_params["output_type_name"] = str(response_schema.get("title") or "Output")
            model_params["output_mode"] = "strict"
        request = {
            "messages": list(messages),
            "tools": list(tools),
            "model_params": model_params,
            "context": None,
            "request_id": None,
            "caller_agent": self.caller,
        }
        try:
            answer = await proxy.call_tool(proxy.function_name, {"request": request})
        except ToolExecutionError as exc:
            raise LlmProviderError(
                f"LLM tool '{self.tool}': provider {proxy.agent_id} failed: {exc.message}"
            ) from None
        return parse_provider_answer(answer, model=self.name)
