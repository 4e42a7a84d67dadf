"""The provider side: `@mesh_llm_provider` turns a function into an LLM provider agent's tool that serves
MCP Mesh's `MeshLlmRequest`, so `@mesh_llm` consumers (ours and mcp-mesh's) can use a vendor's model.

Usage::

    @mesh_llm_provider("anthropic/claude-sonnet-4-5", capability="llm", tags=["claude"])
    def claude() -> None:
        "Claude, for the mesh."

The tool is named after the function and advertises `kwargs.vendor`; a second tool, `<name>_stream`
(tagged `ai.mcpmesh.stream`), streams the answer as MCP Mesh's frames (`chat_stream`). When the
request's tools carry `_mesh_endpoint`, the provider runs the tool loop itself, calling each tool at its
endpoint; otherwise it answers one model turn (text or `tool_calls`) and the consumer runs the tools.
The answer is MCP Mesh's assistant-message dict with `_mesh_usage` (and `_mesh_stop_reason:
"max_iterations"` when the loop ran out).
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from dataclasses import field, replace
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ConfigDict

from .._frozen import frozen, record
from ..callbacks.definition import ToolCallback, ToolDefinition
from ..config.settings import MeshSettings
from ..decorators import EXTRA_TOOLS_ATTR, TOOL_ATTR
from ..mesh.proxy_factory import McpMeshToolProxyFactory
from ..specs import ToolSpec
from ..stream import Stream
from .auto_configuration import PROVIDER_ATTR
from .config import DEFAULT_MAX_ITERATIONS, STREAM_TAG
from .model import LlmIterationLimit, LlmModel
from .types import Message

if TYPE_CHECKING:  # the tool loop and the mesh's tools are loaded with a provider's first request
    from .loop import ToolLoop
    from .vendors import ClientOf

__all__ = ["LlmProviderService", "MeshLlmRequest", "mesh_llm_provider"]

logger = logging.getLogger("mesh_framework.llm")

F = TypeVar("F", bound=Callable[..., Any])
# Keys of `model_params` that steer the provider rather than the model (MCP Mesh's contract).
CONTROL_KEYS = (
    "model",
    "output_schema",
    "output_type_name",
    "output_mode",
    "max_iterations",
    "parallel_tool_calls",
)


class MeshLlmRequest(BaseModel):
    """MCP Mesh's request to an LLM provider: chat messages, tools in OpenAI's function format (with
    `function._mesh_endpoint` when the provider should call them), model parameters."""

    # built on first use (a provider tool's signature): the module loads with every LLM app
    model_config = ConfigDict(extra="allow", defer_build=True)

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None = None
    model_params: dict[str, Any] | None = None
    context: Any = None
    request_id: str | None = None
    caller_agent: str | None = None


@frozen
class ProviderSpec:
    model: str
    model_params: Mapping[str, Any] = field(default_factory=dict)


def vendor_of(model: str) -> str:
    """The vendor MCP Mesh advertises for a model: its prefix, else a guess from the name."""
    if "/" in model:
        return model.split("/", 1)[0]
    lowered = model.lower()
    if lowered.startswith(("gpt-", "o1", "o3", "o4")):
        return "openai"
    if lowered.startswith("claude-"):
        return "anthropic"
    return "gemini" if lowered.startswith("gemini-") else "unknown"


class LlmProviderService:
    """Serves the `@mesh_llm_provider` tools of this agent (a framework bean)."""

    def __init__(
        self,
        settings: MeshSettings,
        factory: McpMeshToolProxyFactory,
        override: Any = None,
        clients: ClientOf | None = None,
    ) -> None:
        self.settings = settings
        self.factory = factory
        self.clients = clients  # the agent's vendor SDK clients, by type (llm/vendor_clients.py)
        # Tests: `app.override(LlmModel, ScriptedLlm([...]))` scripts every provider tool's model.
        self.override: LlmModel | None = override if isinstance(override, LlmModel) else None
        self._models: dict[str, LlmModel] = {}

    def model(self, spec: str) -> LlmModel:
        if self.override is not None:
            return self.override
        model = self._models.get(spec)
        if model is None:
            from .vendors import create_model

            vendor = self.settings.llm.vendor(spec.split("/", 1)[0])
            model = self._models[spec] = create_model(spec, vendor, client=self.clients)
        return model

    async def chat(self, name: str, spec: ProviderSpec, request: MeshLlmRequest) -> dict[str, Any]:
        return await self._answer(self._job(name, spec, request))

    async def _answer(self, job: _Job) -> dict[str, Any]:
        model, model_spec, messages, schema = job.model, job.model_spec, job.messages, job.schema
        callbacks, specs, params, parallel = job.callbacks, job.specs, job.params, job.parallel
        if not callbacks:  # the consumer runs the tools: one turn, tool calls included
            turn = await model.complete(
                messages, tools=specs, params=params, response_schema=schema, parallel_tool_calls=parallel
            )
            answer = turn.to_message()
            answer["_mesh_usage"] = _usage(turn.input_tokens, turn.output_tokens, model_spec)
            return answer
        loop = job.loop()
        answer = {"role": "assistant", "content": ""}
        try:
            content = await loop.run(messages, schema=schema)
            answer["content"] = str(content)
        except LlmIterationLimit:
            said = [m.get("content") for m in messages if m.get("role") == "assistant" and m.get("content")]
            answer["content"] = str(said[-1]) if said else ""
            answer["_mesh_stop_reason"] = "max_iterations"
        if schema is not None and answer["content"]:
            from .loop import json_body

            answer["content"] = json_body(answer["content"])
        usage = loop.usage
        answer["_mesh_usage"] = _usage(usage.input_tokens, usage.output_tokens, model_spec)
        return answer

    async def chat_stream(
        self, name: str, spec: ProviderSpec, request: MeshLlmRequest
    ) -> AsyncGenerator[str]:
        """`chat` as MCP Mesh's stream frames: `{"_mesh_frame": "chunk", "content": ...}` per text delta of
        the final answer, then `{"_mesh_frame": "end"}` (with `"stop_reason": "max_iterations"` when the
        loop ran out). A structured answer is validated whole, so it comes as one chunk."""
        job = self._job(name, spec, request)
        if job.schema is not None:
            answer = await self._answer(job)
            if answer.get("content"):
                yield _frame("chunk", content=answer["content"])
            stop = answer.get("_mesh_stop_reason")
            yield _frame("end", stop_reason=stop) if stop else _frame("end")
            return
        if not job.callbacks:  # one turn; tool calls cannot travel in a stream of text
            events = job.model.stream(
                job.messages, tools=job.specs, params=job.params, parallel_tool_calls=job.parallel
            )
            async with contextlib.aclosing(events):
                async for event in events:
                    if isinstance(event, str):
                        yield _frame("chunk", content=event)
                    elif event.tool_calls:
                        logger.warning(
                            "LLM provider '%s': the model asked for tools %s, but they carry no "
                            "_mesh_endpoint, and a stream carries only text",
                            name,
                            ", ".join(call.name for call in event.tool_calls),
                        )
            yield _frame("end")
            return
        chunks = job.loop().stream(job.messages)
        try:
            async with contextlib.aclosing(chunks):
                async for chunk in chunks:
                    yield _frame("chunk", content=chunk)
        except LlmIterationLimit:
            yield _frame("end", stop_reason="max_iterations")
            return
        yield _frame("end")

    def _job(self, name: str, spec: ProviderSpec, request: MeshLlmRequest) -> _Job:
        """What one request asks of the provider: the model, its parameters, the transcript and tools."""
        params: dict[str, Any] = {**spec.model_params, **(request.model_params or {})}
        control = {key: params.pop(key) for key in CONTROL_KEYS if key in params}
        if "output_schema" in control:
            # mcp-mesh consumers also send a ready-made `response_format`; the schema is ours to apply.
            params.pop("response_format", None)
        model_spec = spec.model
        override = control.get("model")
        if isinstance(override, str) and override:
            wanted = override if "/" in override else f"{vendor_of(spec.model)}/{override}"
            if vendor_of(wanted) == vendor_of(spec.model):
                model_spec = wanted
        messages = [dict(m) for m in request.messages]
        schema = _output(control, messages)
        callbacks, specs = self._tools(request.tools or [])
        max_iterations = int(
            control.get("max_iterations")
            or self.settings.llm.defaults.max_iterations
            or DEFAULT_MAX_ITERATIONS
        )
        return _Job(
            name=name,
            model=self.model(model_spec),
            model_spec=model_spec,
            messages=messages,
            schema=schema,
            callbacks=callbacks,
            specs=specs,
            params=params,
            parallel=control.get("parallel_tool_calls"),
            max_iterations=max_iterations,
        )

    def _tools(self, tools: Sequence[Mapping[str, Any]]) -> tuple[list[ToolCallback], list[dict[str, Any]]]:
        """Callbacks for tools with an endpoint, and the tool specs without the endpoint field."""
        from ..callbacks.mesh import MeshToolCallback
        from ..mesh.proxy import Provider

        callbacks: list[ToolCallback] = []
        specs: list[dict[str, Any]] = []
        for tool in tools:
            function = dict(tool.get("function") or {})
            endpoint = function.pop("_mesh_endpoint", None)
            specs.append({"type": "function", "function": function})
            name = str(function.get("name") or "")
            if not endpoint or not name:
                continue
            provider = Provider(agent_id=str(endpoint), endpoint=str(endpoint), function_name=name)
            definition = ToolDefinition(
                name=name,
                description=str(function.get("description") or ""),
                input_schema=function.get("parameters") or {"type": "object", "properties": {}},
                connection=str(endpoint),
            )
            callbacks.append(MeshToolCallback(self.factory.proxy_for(name, provider), definition))
        if callbacks and len(callbacks) != len(specs):
            logger.warning("some tools carry no _mesh_endpoint; only the ones that do can be called")
        return callbacks, specs

    async def aclose(self) -> None:
        for model in self._models.values():
            await model.aclose()


@record(slots=True)
class _Job:
    name: str
    model: LlmModel
    model_spec: str
    messages: list[Message]
    schema: Mapping[str, Any] | None
    callbacks: list[ToolCallback]
    specs: list[dict[str, Any]]
    params: dict[str, Any]
    parallel: Any
    max_iterations: int

    def loop(self) -> ToolLoop:
        from .loop import ToolLoop

        return ToolLoop(
            self.model,
            self.callbacks,
            max_iterations=self.max_iterations,
            params=self.params,
            parallel_tool_calls=self.parallel,
            label=f"LLM provider '{self.name}'",
        )


def _frame(kind: str, **fields: Any) -> str:
    """One of MCP Mesh's stream frames, as Python's json.dumps writes it."""
    return json.dumps({"_mesh_frame": kind, **fields})


def _usage(input_tokens: int, output_tokens: int, model: str) -> dict[str, Any]:
    """MCP Mesh's `_mesh_usage`: tokens of every model call of this request, the configured model."""
    return {"prompt_tokens": input_tokens, "completion_tokens": output_tokens, "model": model}


def _output(control: Mapping[str, Any], messages: list[Message]) -> Mapping[str, Any] | None:
    """The response schema for `strict` mode; `hint` mode puts the schema in the system prompt."""
    schema = control.get("output_schema")
    if not isinstance(schema, Mapping):
        return None
    mode = control.get("output_mode") or "strict"
    if mode == "text":
        return None
    if mode == "hint":
        hint = f"Answer with only a JSON value matching this schema: {json.dumps(schema)}"
        if messages and messages[0].get("role") == "system":
            messages[0] = {**messages[0], "content": f"{messages[0].get('content') or ''}\n\n{hint}"}
        else:
            messages.insert(0, {"role": "system", "content": hint})
        return None
    return {**schema, "title": control.get("output_type_name") or schema.get("title") or "Output"}


def mesh_llm_provider(
    model: str,
    *,
    capability: str = "llm",
    tags: Sequence[str] = (),
    version: str = "1.0.0",
    name: str | None = None,
    description: str | None = None,
    **model_params: Any,
) -> Callable[[F], F]:
    """Serve a vendor's `model` to the mesh as an LLM provider (MCP Mesh's `@mesh.llm_provider`).

    The decorated function's body is not called: the tool it becomes answers `MeshLlmRequest`s. Vendor
    settings (`llm.vendors.<vendor>`: base URL, key, timeouts) apply; `model_params` are defaults the
    request's own `model_params` override.
    """
    from .mesh_provider import STREAM_SUFFIX

    spec = ProviderSpec(model=model, model_params=dict(model_params))

    def mark(function: F) -> F:
        tool_name = name or function.__name__

        async def handler(request: MeshLlmRequest, service: LlmProviderService) -> dict[str, Any]:
            return await service.chat(tool_name, spec, request)

        handler.__name__ = function.__name__
        handler.__qualname__ = function.__qualname__
        handler.__module__ = function.__module__
        handler.__doc__ = function.__doc__ or f"LLM provider serving {model} to the mesh."
        tool = ToolSpec(
            function=handler,
            name=tool_name,
            capability=capability,
            description=description,
            tags=tuple(tags),
            version=version,
            kwargs={"vendor": vendor_of(model), "model": model},
        )

        async def stream_handler(request: MeshLlmRequest, service: LlmProviderService) -> Stream[str]:
            async with contextlib.aclosing(service.chat_stream(tool_name, spec, request)) as frames:
                async for frame in frames:
                    yield frame

        stream_handler.__name__ = f"{function.__name__}{STREAM_SUFFIX}"
        stream_handler.__qualname__ = f"{function.__qualname__}{STREAM_SUFFIX}"
        stream_handler.__module__ = function.__module__
        stream_handler.__doc__ = f"{handler.__doc__} Streams the answer as MCP Mesh's stream frames."
        stream_tool = replace(
            tool,
            function=stream_handler,
            name=f"{tool_name}{STREAM_SUFFIX}",
            tags=(*tool.tags, STREAM_TAG),
        )
        setattr(handler, TOOL_ATTR, tool)
        setattr(handler, EXTRA_TOOLS_ATTR, (stream_tool,))
        setattr(handler, PROVIDER_ATTR, spec)
        return handler  # type: ignore[return-value]

    return mark
