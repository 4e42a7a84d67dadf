"""`McpMeshTool` implementations: a remote tool over HTTP, and a tool of this same agent called in process."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from time import perf_counter
from typing import Any

from .. import observation
from .._frozen import frozen
from ..errors import ToolExecutionError
from ..injectables import McpMeshTool, stream_text
from ..tools.context import ToolContext
from ..tools.relayed_input import dependency_call, relayed_answer
from ..tools.streaming import CHUNK_SINK, STREAM_BUFFER, ChunkChannel
from ..tools.wrapper import MeshToolWrapper
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .transport import McpTransport, ProviderUnreachable, RemoteError

__all__ = [
    "DEFAULT_STREAM_TIMEOUT",
    "Answer",
    "DownEndpoints",
    "InProcessMcpMeshTool",
    "McpMeshToolProxy",
    "Provider",
    "ProviderRefused",
    "unwrap_result",
]

logger = logging.getLogger("mesh_framework.mesh")

DEFAULT_STREAM_TIMEOUT = 300.0


@frozen
class Provider:
    """One agent serving a capability: where to call and which tool."""

    agent_id: str
    endpoint: str  # http://host:port (the MCP endpoint is endpoint + "/mcp")
    function_name: str
    idempotent: bool = False  # @mesh_tool(idempotent=True): safe to repeat elsewhere after a timeout
    # Seconds a stream() waits for each chunk: the provider's kwargs.stream_timeout (MCP Mesh's default).
    stream_timeout: float = DEFAULT_STREAM_TIMEOUT

    @property
    def url(self) -> str:
        return self.endpoint.rstrip("/") + "/mcp"

    @classmethod
    def from_listing(cls, entry: Any) -> Provider | None:
        """A provider from a registry listing (`llm_tools`, `llm_providers` entries), which names the tool
        `name` (or `function_name`) and may leave out the agent id (the endpoint stands in); None when it
        names no tool or endpoint."""
        if not isinstance(entry, Mapping):
            return None
        name, endpoint = entry.get("name") or entry.get("function_name"), entry.get("endpoint")
        if not (isinstance(name, str) and isinstance(endpoint, str) and name and endpoint):
            return None
        return cls(agent_id=str(entry.get("agent_id") or endpoint), endpoint=endpoint, function_name=name)


def unwrap_result(result: Mapping[str, Any], *, tool: str, agent: str, definition: Any = None) -> Any:
    """A `CallToolResult` as a Python value, the way MCP Mesh unwraps it.

    `isError` raises ToolExecutionError (keeping the text, the result and the callback `definition`);
    `structuredContent` wins (a lone `result` key is the wrapper of a non-object value); otherwise one
    text block is returned as a string and several blocks as a list.
    """
    if result.get("isError"):
        texts = [c.get("text", "") for c in result.get("content") or [] if c.get("type") == "text"]
        raise ToolExecutionError(
            "; ".join(t for t in texts if t) or "the tool reported an error",
            tool=tool,
            agent=agent,
            definition=definition,
            result=result,
        )
    structured = result.get("structuredContent")
    if isinstance(structured, dict):
        return structured["result"] if structured.keys() == {"result"} else structured
    content = result.get("content") or []
    if len(content) == 1 and content[0].get("type") == "text":
        return content[0].get("text", "")
    return list(content) if content else None


class ProviderRefused(ToolExecutionError):
    """The provider refused the call with a JSON-RPC error instead of answering it (an unknown tool,
    invalid params, a request state that fails its check, an undeclared client capability): its `code`,
    `data`, `refusal` (its message) and the HTTP `status` it came with, for a caller relaying the
    refusal as it was made (`mesh gateway`)."""

    def __init__(self, error: RemoteError, *, tool: str, agent: str) -> None:
        super().__init__(str(error), tool=tool, agent=agent)
        self.code: int = error.code if isinstance(error.code, int) else 0
        self.data = error.data
        self.refusal = str(error)
        self.status = error.status


@frozen
class Answer:
    """A provider's answer to one call: its `CallToolResult`, who gave it and the tool's name there."""

    result: dict[str, Any]
    provider: Provider
    tool: str


class DownEndpoints:
    """Endpoints this agent saw refuse a connection, remembered for a while (no registry round trip)."""

    def __init__(self, ttl: float) -> None:
        self.ttl = ttl
        self._until: dict[str, float] = {}

    def mark(self, endpoint: str) -> None:
        self._until[endpoint] = time.monotonic() + self.ttl

    def is_down(self, endpoint: str) -> bool:
        until = self._until.get(endpoint)
        if until is None:
            return False
        if until < time.monotonic():
            del self._until[endpoint]
            return False
        return True


class McpMeshToolProxy(McpMeshTool):
    """Calls a tool of another agent. One alternate (another provider the registry named) is tried when
    the chosen provider did not run the call: it refused the connection, or answered 503 with Retry-After
    because it is stopping. A call that may have run is repeated elsewhere only after a timeout, and only
    for a tool its provider marked `idempotent=True`; tools need not be idempotent.
    """

    # Metrics (`MeshMetrics`: proxy_call, proxy_failover), set by the factory when metrics are on.
    observer: Any = None

    def __init__(
        self,
        transport: McpTransport,
        *,
        capability: str,
        provider: Provider,
        alternates: Sequence[Provider] = (),
        down: DownEndpoints,
        on_unreachable: Callable[[str], None] = lambda _endpoint: None,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.transport = transport
        self.headers = dict(headers or {})  # credentials for this dependency (auth.dependency_tokens)
        self.capability = capability
        self.provider = provider
        self.alternates = tuple(alternates)
        self.function_name = provider.function_name
        self.endpoint = provider.endpoint
        self.agent_id = provider.agent_id
        self.timeout = timeout
        self._down = down
        self._on_unreachable = on_unreachable

    def _observed(self, observer: Any, provider: Provider, outcome: str, started: float) -> None:
        observer.proxy_call(self.capability, provider.endpoint, outcome, perf_counter() - started)

    def _candidates(self) -> list[Provider]:
        everyone = [self.provider, *self.alternates]
        up = [p for p in everyone if not self._down.is_down(p.endpoint)]
        return up or everyone

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        tool = self.provider.function_name if name == self.function_name else name
        # While a tool call is served, the provider may ask its client for input: its question goes to
        # that call's caller and the answers come back with the call (tools/relayed_input.py).
        relay = dependency_call(self.capability)
        if relay is None:
            result = await self.call_result(name, arguments)
        else:
            result = await self.call_result(name, arguments, meta=relay.meta, extra=relay.params)
        relayed_answer(result, None if relay is None else relay.key, tool=tool, agent=self.agent_id)
        return unwrap_result(result, tool=tool, agent=self.agent_id)

    async def call_result(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        meta: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
        on_notification: Callable[[dict[str, Any]], Awaitable[None]] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """`extra`: more request params, relayed as given (a client's `inputResponses`, `requestState`);
        `on_notification`: handed the provider's notifications (progress, log messages) as they come, when
        `meta` asks for them (a `progressToken`, a log level); `headers`: this call's own (lower-case
        names: the `Mcp-Param-*` mirroring its arguments)."""
        sent = {**self.headers, **headers} if headers else self.headers
        params: dict[str, Any] = {**(extra or {}), "name": name, "arguments": dict(arguments or {})}
        if meta:
            params["_meta"] = dict(meta)

        async def call(provider: Provider, tool: str) -> dict[str, Any]:
            return await self.transport.request(
                provider.url,
                "tools/call",
                {**params, "name": tool},
                timeout=self.timeout,
                headers=sent,
                idempotent=provider.idempotent,
                on_notification=on_notification,
            )

        return (await self._failover(name, call, after_timeout=True)).result

    async def stream_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> AsyncIterator[str]:
        # The HTTP stream (its connection, its client span) lives in a task of its own, so nothing of it
        # is held in the caller's context between chunks; leaving early cancels that task.
        channel = ChunkChannel(STREAM_BUFFER)
        pump = asyncio.ensure_future(self._pump(name, dict(arguments or {}), channel))
        pump.add_done_callback(lambda _t: channel.close())
        chunks = 0
        try:
            async for chunk in channel:
                chunks += 1
                yield chunk
            text = pump.result()
            if chunks == 0:  # the provider does not stream: its whole answer, once
                yield text
        finally:
            if not pump.done():
                pump.cancel()  # closes the response: the provider's generator stops
                await asyncio.wait((pump,))

    async def _pump(self, name: str, arguments: dict[str, Any], channel: ChunkChannel) -> str:
        """Stream one call into `channel`; the final text (ToolExecutionError for an error result)."""
        answer = await self._streamed({"name": name, "arguments": arguments}, channel.send)
        return stream_text(answer.result, tool=answer.tool, agent=answer.provider.agent_id)

    async def stream_result(
        self,
        name: str,
        arguments: Mapping[str, Any] | None,
        on_chunk: Callable[[str], Awaitable[None]],
        *,
        meta: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """A streamed call's `CallToolResult` as the provider answered it (its structured content
        included), each chunk handed to `on_chunk` as it comes; `meta`, `extra`, `headers` as
        `call_result`'s."""
        params: dict[str, Any] = {**(extra or {}), "name": name, "arguments": dict(arguments or {})}
        if meta:
            params["_meta"] = dict(meta)
        return (await self._streamed(params, on_chunk, headers)).result

    async def _streamed(
        self,
        params: dict[str, Any],
        on_chunk: Callable[[str], Awaitable[None]],
        headers: Mapping[str, str] | None = None,
    ) -> Answer:
        """One streamed call, failing over as a stream may (never after a timeout: chunks may be out)."""
        name = params["name"]
        sent = {**self.headers, **headers} if headers else self.headers

        async def stream(provider: Provider, tool: str) -> dict[str, Any]:
            answer = self.transport.stream(
                provider.url,
                {**params, "name": tool},
                read_timeout=provider.stream_timeout,
                headers=sent,
            )
            try:
                async for piece in answer:
                    if not isinstance(piece, str):
                        return piece  # the result: the stream's last piece
                    await on_chunk(piece)
            finally:
                await answer.aclose()
            raise RemoteError(f"{provider.url}: the stream ended before the tools/call result")

        return await self._failover(name, stream, after_timeout=False)

    async def _failover(
        self,
        name: str,
        attempt: Callable[[Provider, str], Awaitable[dict[str, Any]]],
        *,
        after_timeout: bool,
    ) -> Answer:
        """The one failover loop of a call and of a stream: `attempt` on the chosen provider (the first one
        not seen down), then once on the next when the first did not run the call (it refused the
        connection, or answered 503 with Retry-After because it is stopping) or, with `after_timeout` (a
        call; a stream may have delivered chunks), timed out on a tool its provider marked idempotent.
        Each attempt is counted (`observer.proxy_call`) inside one client span; a failure raises
        ToolExecutionError saying what happened."""
        candidates = self._candidates()
        with observation.tracer.outbound_call(self.capability, name) as span:
            for index, provider in enumerate(candidates[:2]):
                # Another provider's tool may carry another function name for the same capability.
                tool = provider.function_name if name == self.function_name else name
                span.set("mesh.provider.agent_id", provider.agent_id)
                span.set("url.full", provider.url)
                observer, started = self.observer, perf_counter()
                another = index == 0 and len(candidates) > 1
                try:
                    result = await attempt(provider, tool)
                except ProviderUnreachable as exc:
                    self._down.mark(provider.endpoint)
                    self._on_unreachable(provider.endpoint)
                    if observer is not None:
                        self._observed(observer, provider, "unreachable", started)
                    if another:
                        span.event("failover", {"mesh.unreachable": provider.endpoint})
                        if observer is not None:
                            observer.proxy_failover(self.capability, provider.endpoint)
                        continue
                    raise ToolExecutionError(
                        f"{exc}; no other provider of '{self.capability}' is known",
                        tool=tool,
                        agent=provider.agent_id,
                    ) from None
                except RemoteError as exc:
                    if observer is not None:
                        self._observed(observer, provider, "error", started)
                    if after_timeout and exc.timed_out and provider.idempotent and another:
                        # only a tool marked idempotent may run twice: the first call may have had effects
                        logger.warning("%s; trying another provider of '%s'", exc, self.capability)
                        span.event("failover", {"mesh.timeout": provider.endpoint})
                        continue
                    if exc.code is not None:  # a JSON-RPC refusal: the call did not run
                        raise ProviderRefused(exc, tool=tool, agent=provider.agent_id) from None
                    raise ToolExecutionError(str(exc), tool=tool, agent=provider.agent_id) from None
                except asyncio.CancelledError:
                    if observer is not None:  # the caller left: a call, not an error
                        self._observed(observer, provider, "cancelled", started)
                    raise
                span.result(result)
                if observer is not None:
                    self._observed(observer, provider, "error" if result.get("isError") else "ok", started)
                return Answer(result, provider, tool)
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    async def list_tools(self) -> list[dict[str, Any]]:
        try:
            result = await self.transport.request(
                self.provider.url, "tools/list", timeout=self.timeout, headers=self.headers
            )
        except (ProviderUnreachable, RemoteError) as exc:
            raise ToolExecutionError(str(exc), tool="tools/list", agent=self.agent_id) from None
        return list(result.get("tools") or [])

    async def _feature_request(self, method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Prompts and resources of the chosen provider (`RemoteFeatures`)."""
        try:
            return await self.transport.request(
                self.provider.url, method, params, timeout=self.timeout, headers=self.headers
            )
        except (ProviderUnreachable, RemoteError) as exc:
            raise ToolExecutionError(str(exc), tool=method, agent=self.agent_id) from None


class InProcessMcpMeshTool(McpMeshTool):
    """A dependency served by this same agent: called through its wrapper, without HTTP.

    It is counted as a remote call is: a served call (`on_tool_call`, the endpoint's hook) and a call to
    the dependency (`observer.proxy_call`, with this agent's endpoint), inside a client span. A call its
    caller leaves (a stream whose reader went away) counts as a call, not an error (outcome `cancelled`).
    """

    # The factory sets both when metrics or the console watch (application/observability.py).
    observer: Any = None
    on_tool_call: Callable[[str, bool, float], None] | None = None

    def __init__(
        self,
        *,
        capability: str,
        function_name: str,
        registry: MeshToolWrapperRegistry,
        agent_id: str,
        endpoint: str,
        features: Any = None,
    ) -> None:
        self.capability = capability
        self.function_name = function_name
        self.agent_id = agent_id
        self.endpoint = endpoint
        self._registry = registry
        self._features = features  # this agent's prompts and resources (protocol.features.FeatureHandlers)

    def _counted(self, tool: str, result: Mapping[str, Any] | None, started: float) -> None:
        """One call as the endpoint and a remote proxy count it; `result` None: its caller left."""
        seconds = perf_counter() - started
        is_error = result is not None and bool(result.get("isError"))
        if self.on_tool_call is not None:
            self.on_tool_call(tool, is_error, seconds)
        if self.observer is not None:
            outcome = "cancelled" if result is None else "error" if is_error else "ok"
            self.observer.proxy_call(self.capability, self.endpoint, outcome, seconds)

    def _wrapper(self, name: str) -> MeshToolWrapper:
        wrapper = self._registry.get(name)
        if wrapper is None:
            raise ToolExecutionError(f"this agent has no tool '{name}'", tool=name, agent=self.agent_id)
        return wrapper

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        relay = dependency_call(self.capability)
        if relay is None:
            result = await self.call_result(name, arguments)
        else:  # its questions relayed as a remote provider's are, its state kept as it is
            context = ToolContext(
                name,
                modern=True,
                client_capabilities=relay.capabilities,
                input_responses=relay.params.get("inputResponses"),
                request_state=relay.params.get("requestState"),
                encode_state=_kept_as_is,
            )
            result = await self._traced_call(self._wrapper(name), name, arguments, context)
        relayed_answer(result, None if relay is None else relay.key, tool=name, agent=self.agent_id)
        return unwrap_result(result, tool=name, agent=self.agent_id)

    async def call_result(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, meta: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        return await self._traced_call(self._wrapper(name), name, arguments)

    async def _traced_call(
        self,
        wrapper: MeshToolWrapper,
        name: str,
        arguments: Mapping[str, Any] | None,
        context: ToolContext | None = None,
    ) -> dict[str, Any]:
        """The call inside a client span, counted as a remote call is (`context`: a relaying call's)."""
        with observation.tracer.outbound_call(self.capability, name) as span:
            span.set("mesh.provider.agent_id", self.agent_id)
            started, result = perf_counter(), None
            try:
                result = await wrapper.call(arguments, context)
            finally:
                self._counted(name, result, started)
            span.result(result)
            return result

    async def stream_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> AsyncIterator[str]:
        wrapper = self._wrapper(name)
        channel = ChunkChannel(STREAM_BUFFER)

        async def run() -> dict[str, Any]:
            # the span and the count live in the call's own task (the caller's context stays as it was)
            CHUNK_SINK.set(channel.send)
            return await self._traced_call(wrapper, name, arguments)

        task = asyncio.ensure_future(run())
        task.add_done_callback(lambda _t: channel.close())
        chunks = 0
        try:
            async for chunk in channel:
                chunks += 1
                yield chunk
            text = stream_text(task.result(), tool=name, agent=self.agent_id)
            if chunks == 0:
                yield text
        finally:
            if not task.done():
                task.cancel()
                await asyncio.wait((task,))

    async def list_tools(self) -> list[dict[str, Any]]:
        return [wrapper.descriptor for wrapper in self._registry]

    async def _feature_request(self, method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """This agent's prompts and resources, without HTTP."""
        if self._features is None:
            return await super()._feature_request(method, params)
        from ..protocol.features import FeatureError

        try:
            result: dict[str, Any] = await self._features.handle(method, dict(params or {}), modern=False)
        except FeatureError as exc:
            raise ToolExecutionError(exc.message, tool=method, agent=self.agent_id) from None
        return result


def _kept_as_is(_tool: str, state: Any) -> Any:
    """A dependency served in process keeps its request state unsigned: it travels inside the signed
    state of the tool call that relays its questions."""
    return state
