"""The spans an agent records: an incoming tool call, an outbound proxy call, a registry call, an LLM
iteration. Each helper returns a context manager; with tracing and call logging off it is one shared
object that does nothing, so the call path pays an attribute read and a `with`."""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .carriers import parent_context
from .otel import api as _api
from .state import CallInfo, current_call, state

if TYPE_CHECKING:
    from opentelemetry.context import Context

__all__ = ["SpanScope", "incoming_call", "llm_iteration", "outbound_call", "record_result", "registry_call"]


class SpanScope:
    """What code inside a traced block may add; the no-op scope ignores it all."""

    __slots__ = ()

    def __enter__(self) -> SpanScope:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        return None

    def set(self, key: str, value: Any) -> None:
        """An attribute of the span (str, bool, int, float)."""

    def event(self, name: str, attributes: Mapping[str, Any] | None = None) -> None:
        """Something that happened during the span (a failover)."""

    def result(self, result: Mapping[str, Any]) -> None:
        """A `CallToolResult`: an `isError` one marks the span as failed."""


NOOP = SpanScope()


class _Span(SpanScope):
    """A span when tracing is on (`kind`: a `SpanKind` name), else only the call's log context."""

    __slots__ = ("_attributes", "_call", "_call_token", "_kind", "_name", "_parent", "_span", "_token")

    def __init__(
        self,
        name: str,
        kind: str,
        attributes: dict[str, Any],
        parent: Context | None = None,
        call: CallInfo | None = None,
    ) -> None:
        self._name = name
        self._kind = kind
        self._attributes = attributes
        self._parent = parent
        self._call = call
        self._span: Any = None
        self._token: Any = None
        self._call_token: Any = None

    def __enter__(self) -> SpanScope:
        if self._call is not None:
            self._call_token = current_call.set(self._call)
        tracer = state.tracer
        if tracer is not None:
            otel = _api()
            self._span = span = tracer.start_span(
                self._name, context=self._parent, kind=otel.SpanKind[self._kind], attributes=self._attributes
            )
            self._token = otel.context.attach(otel.trace.set_span_in_context(span))
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        span = self._span
        if span is not None:
            otel = _api()
            if exc is not None and not isinstance(exc, GeneratorExit):
                span.record_exception(exc)
                span.set_status(otel.Status(otel.StatusCode.ERROR, f"{type(exc).__name__}: {exc}"))
            span.end()
            otel.context.detach(self._token)
        if self._call_token is not None:
            current_call.reset(self._call_token)

    def set(self, key: str, value: Any) -> None:
        if self._span is not None:
            self._span.set_attribute(key, value)

    def event(self, name: str, attributes: Mapping[str, Any] | None = None) -> None:
        if self._span is not None:
            self._span.add_event(name, dict(attributes or {}))

    def result(self, result: Mapping[str, Any]) -> None:
        if self._span is not None and result.get("isError"):
            _failed(self._span, result)


def _failed(span: Any, result: Mapping[str, Any]) -> None:
    otel = _api()
    texts = [c.get("text", "") for c in result.get("content") or [] if isinstance(c, dict)]
    span.set_attribute("error.type", "tool_error")
    span.set_status(otel.Status(otel.StatusCode.ERROR, "; ".join(t for t in texts if t)[:500]))


def record_result(result: Mapping[str, Any]) -> None:
    """Mark the current span as failed when `result` (a `CallToolResult`) is an error: for code that
    holds no scope, such as a streamed answer."""
    if state.tracer is not None and result.get("isError"):
        span = _api().trace.get_current_span()
        if span.is_recording():
            _failed(span, result)


def incoming_call(
    tool: str, rpc_id: Any, params: Mapping[str, Any], raw_headers: Iterable[tuple[bytes, bytes]]
) -> SpanScope:
    """The server span of one `tools/call`, continuing the caller's trace when it sent one (`rpc_id`, the
    JSON-RPC id, is not recorded: the SDK checks every attribute on the call path)."""
    if state.tracer is None and not state.log_calls:
        return NOOP
    call = None
    if state.log_calls:
        call = CallInfo(tool, _request_id(raw_headers))
    if state.tracer is None:
        return _Span("", "SERVER", {}, call=call)
    parent, source = parent_context(params, raw_headers)
    # Few attributes: the SDK checks each one on the call path. The agent is on the resource.
    attributes: dict[str, Any] = {"mcp.method.name": "tools/call", "gen_ai.tool.name": tool}
    if source:
        attributes["mesh.trace.source"] = source
    return _Span(f"tools/call {tool}", "SERVER", attributes, parent, call)


def _request_id(raw_headers: Iterable[tuple[bytes, bytes]]) -> str:
    for key, value in raw_headers:
        if key == b"x-request-id" and value:
            return value.decode("latin-1")[:128]
    return secrets.token_hex(8)


def outbound_call(capability: str, tool: str) -> SpanScope:
    """The client span of one proxy call (failovers included); the transport sends its context."""
    if state.tracer is None:
        return NOOP
    attributes = {"mcp.method.name": "tools/call", "gen_ai.tool.name": tool, "mesh.capability": capability}
    return _Span(f"tools/call {tool}", "CLIENT", attributes)


def registry_call(method: str, url: str, name: str) -> SpanScope:
    """The client span of one registry request (`name`: the route, without ids)."""
    if state.tracer is None:
        return NOOP
    attributes = {"http.request.method": method, "url.full": url}
    return _Span(f"registry {method} {name}", "CLIENT", attributes)


def llm_iteration(label: str, iteration: int) -> SpanScope:
    """One turn of an LLM tool loop: the model's answer and the tools it asked for."""
    if state.tracer is None:
        return NOOP
    attributes = {
        "gen_ai.operation.name": "chat",
        "mesh.llm.label": label,
        "mesh.llm.iteration": iteration,
    }
    return _Span(f"llm iteration {iteration + 1}", "INTERNAL", attributes)
