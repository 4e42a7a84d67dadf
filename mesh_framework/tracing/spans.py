"""The spans an agent records: an incoming tool call or web route request, an outbound proxy call, a
registry call, an LLM iteration. Each helper returns a context manager; with tracing, call logging and the
console off it is one shared object that does nothing, so the call path pays an attribute read and a
`with`.

While the console gathers spans (`state.spans`), each finished span is also appended there as a tuple: the
OpenTelemetry span's ids when tracing is on, else ids of the light context (`state.light_context`), for
the traces the console keeps (`state.budget`, sampling.py)."""

from __future__ import annotations

import secrets
from asyncio import CancelledError
from collections.abc import Iterable, Mapping
from random import getrandbits
from time import perf_counter, time
from typing import TYPE_CHECKING, Any

from ..observation import NOOP, CallInfo, SpanScope, current_call
from .carriers import light_parent, parent_context
from .otel import api as _api
from .state import UNKEPT, light_context, state

if TYPE_CHECKING:
    from opentelemetry.context import Context

__all__ = [
    "SpanScope",
    "incoming_call",
    "incoming_request",
    "llm_iteration",
    "outbound_call",
    "record_result",
    "registry_call",
]

_NO_PARAMS: Mapping[str, Any] = {}  # a web request has no `_meta` or arguments: its trace is in headers
# A span its caller left (the client went away, a stream was closed early) ends cancelled, not failed:
# what the console shows beside its name says so, and OpenTelemetry's span gets `mesh.cancelled`.
CANCELLED = " (cancelled)"
_LEFT = (GeneratorExit, CancelledError)


class _Span(SpanScope):
    """An OpenTelemetry span (`kind`: a `SpanKind` name), or only the call's log context."""

    __slots__ = (
        "_attributes",
        "_call",
        "_call_token",
        "_console",
        "_detail",
        "_error",
        "_ids",
        "_kind",
        "_name",
        "_parent",
        "_span",
        "_started",
        "_token",
    )

    def __init__(
        self,
        name: str,
        kind: str,
        attributes: dict[str, Any],
        parent: Context | None = None,
        call: CallInfo | None = None,
        *,
        detail: str = "",
        console: bool = True,
    ) -> None:
        self._name = name
        self._kind = kind
        self._attributes = attributes
        self._parent = parent
        self._call = call
        self._detail = detail  # what the console shows beside the name (the agent's tool, the provider)
        self._console = console
        self._span: Any = None
        self._token: Any = None
        self._call_token: Any = None
        self._ids: tuple[int, int, int] | None = None  # (trace id, span id, parent span id) for the console
        self._error = ""
        self._started = 0.0

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
            if state.spans is not None and self._console:
                context, parent = span.get_span_context(), getattr(span, "parent", None)
                self._ids = (context.trace_id, context.span_id, parent.span_id if parent else 0)
                self._started = perf_counter()
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        span = self._span
        failed = exc is not None and not isinstance(exc, _LEFT)
        if isinstance(exc, CancelledError):
            self._detail += CANCELLED
        if span is not None:
            otel = _api()
            if failed:
                span.record_exception(exc)
                span.set_status(otel.Status(otel.StatusCode.ERROR, f"{type(exc).__name__}: {exc}"))
            elif isinstance(exc, CancelledError):
                span.set_attribute("mesh.cancelled", True)
            span.end()
            otel.context.detach(self._token)
        ids = self._ids
        if ids is not None:
            seconds = perf_counter() - self._started
            error = f"{type(exc).__name__}: {exc}"[:300] if failed else self._error
            spans = state.spans
            if spans is not None:
                spans.append((*ids, self._name, self._kind, self._detail, time() - seconds, seconds, error))
        if self._call_token is not None:
            current_call.reset(self._call_token)

    def set(self, key: str, value: Any) -> None:
        if self._span is not None:
            self._span.set_attribute(key, value)
        if key == "mesh.provider.agent_id" and self._ids is not None:
            self._detail = f"{self._detail} → {value}"

    def event(self, name: str, attributes: Mapping[str, Any] | None = None) -> None:
        if self._span is not None:
            self._span.add_event(name, dict(attributes or {}))

    def result(self, result: Mapping[str, Any]) -> None:
        if result.get("isError"):
            if self._span is not None:
                _failed(self._span, result)
            if self._ids is not None:
                texts = [c.get("text", "") for c in result.get("content") or [] if isinstance(c, dict)]
                self._error = ("; ".join(t for t in texts if t) or "isError")[:300]

    def status(self, code: int) -> None:
        span = self._span
        if span is not None:
            span.set_attribute("http.response.status_code", code)
            if code >= 500:
                otel = _api()
                span.set_attribute("error.type", str(code))
                span.set_status(otel.Status(otel.StatusCode.ERROR, f"HTTP {code}"))
        if code >= 500:
            self._error = f"HTTP {code}"


class _ConsoleSpan(SpanScope):
    """A span for the console only (OpenTelemetry off): ids from the light context, one tuple at the end."""

    __slots__ = (
        "_call",
        "_call_token",
        "_detail",
        "_error",
        "_kind",
        "_name",
        "_parent",
        "_parent_id",
        "_span_id",
        "_start",
        "_token",
        "_trace_id",
    )

    def __init__(
        self, name: str, kind: str, detail: str, parent: tuple[int, int] | None, call: CallInfo | None = None
    ) -> None:
        self._name = name
        self._kind = kind
        self._detail = detail
        self._parent = parent
        self._call = call
        self._error = ""

    def __enter__(self) -> SpanScope:
        self._call_token = current_call.set(self._call) if self._call is not None else None
        parent = self._parent
        self._span_id = span_id = getrandbits(64) or 1
        if parent is None:
            self._trace_id = trace_id = getrandbits(128) or 1
            self._parent_id = 0
        else:
            self._trace_id, self._parent_id = trace_id, _ = parent
        self._token = light_context.set((trace_id, span_id))
        self._start = time()
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        end = time()
        light_context.reset(self._token)
        error, detail = self._error, self._detail
        if isinstance(exc, CancelledError):
            detail += CANCELLED
        elif exc is not None and not isinstance(exc, GeneratorExit):
            error = f"{type(exc).__name__}: {exc}"[:300]
        spans = state.spans
        if spans is not None:
            start = self._start
            record = (self._trace_id, self._span_id, self._parent_id, self._name, self._kind, detail)
            spans.append((*record, start, end - start, error))
        if self._call_token is not None:
            current_call.reset(self._call_token)

    def set(self, key: str, value: Any) -> None:
        if key == "mesh.provider.agent_id":
            self._detail = f"{self._detail} → {value}"

    def result(self, result: Mapping[str, Any]) -> None:
        if result.get("isError"):
            texts = [c.get("text", "") for c in result.get("content") or [] if isinstance(c, dict)]
            self._error = ("; ".join(t for t in texts if t) or "isError")[:300]

    def status(self, code: int) -> None:
        if code >= 500:
            self._error = f"HTTP {code}"


class _Unkept(SpanScope):
    """An incoming call whose trace the console does not keep: the calls it makes say so (`UNKEPT`)."""

    __slots__ = ("_call", "_call_token", "_token")

    def __init__(self, call: CallInfo | None = None) -> None:
        self._call = call

    def __enter__(self) -> SpanScope:
        self._call_token = current_call.set(self._call) if self._call is not None else None
        self._token = light_context.set(UNKEPT)
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        light_context.reset(self._token)
        if self._call_token is not None:
            current_call.reset(self._call_token)


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
    tool: str,
    rpc_id: Any,
    params: Mapping[str, Any],
    raw_headers: Iterable[tuple[bytes, bytes]],
    *,
    trace_headers: bool = True,
) -> SpanScope:
    """The server span of one `tools/call`, continuing the caller's trace when it sent one (`rpc_id`, the
    JSON-RPC id, is not recorded: the SDK checks every attribute on the call path). `trace_headers`:
    False when the endpoint saw none of `TRACE_HEADERS` among `raw_headers`."""
    if state.tracer is None and not state.log_calls and state.spans is None:
        return NOOP
    call = None
    if state.log_calls:
        call = CallInfo(tool, _request_id(raw_headers))
    if state.tracer is None:
        return _untraced_server(f"tools/call {tool}", call, params, raw_headers if trace_headers else None)
    parent, source = parent_context(params, raw_headers if trace_headers else ())
    # Few attributes: the SDK checks each one on the call path. The agent is on the resource.
    attributes: dict[str, Any] = {"mcp.method.name": "tools/call", "gen_ai.tool.name": tool}
    if source:
        attributes["mesh.trace.source"] = source
    return _Span(f"tools/call {tool}", "SERVER", attributes, parent, call, detail=state.agent)


def incoming_request(method: str, route: str, raw_headers: Iterable[tuple[bytes, bytes]]) -> SpanScope:
    """The server span of one web route request (`route`: its path template, `/api/items/{id}`), continuing
    the trace the caller's headers carry (`traceparent`, MCP Mesh's `X-Trace-ID`/`X-Parent-Span`) as a
    tool call does; structured logs name the route as the registry does (`GET:/api/items/{id}`)."""
    if state.tracer is None and not state.log_calls and state.spans is None:
        return NOOP
    call = None
    if state.log_calls:
        call = CallInfo(f"{method}:{route}", _request_id(raw_headers))
    if state.tracer is None:
        return _untraced_server(f"{method} {route}", call, _NO_PARAMS, raw_headers)
    parent, source = parent_context(_NO_PARAMS, raw_headers)
    attributes: dict[str, Any] = {"http.request.method": method, "http.route": route}
    if source:
        attributes["mesh.trace.source"] = source
    return _Span(f"{method} {route}", "SERVER", attributes, parent, call, detail=state.agent)


def _untraced_server(
    name: str,
    call: CallInfo | None,
    params: Mapping[str, Any],
    raw_headers: Iterable[tuple[bytes, bytes]] | None,
) -> SpanScope:
    """An incoming call's scope without OpenTelemetry: the console's span while its trace is kept (a new
    trace while `state.budget` lasts), else only the call's log context (`raw_headers`: None when the
    request carries none of `TRACE_HEADERS`)."""
    if state.spans is None:
        return _Span("", "SERVER", {}, call=call)
    ids = light_parent(params, raw_headers)
    if ids is None:  # a new trace, while the budget lasts
        budget = state.budget
        if budget.left <= 0:
            return _Unkept(call)
        budget.left -= 1
    elif ids is UNKEPT:
        return _Unkept(call)
    return _ConsoleSpan(name, "SERVER", state.agent, ids, call)


def _request_id(raw_headers: Iterable[tuple[bytes, bytes]]) -> str:
    for key, value in raw_headers:
        if key == b"x-request-id" and value:
            return value.decode("latin-1")[:128]
    return secrets.token_hex(8)


def outbound_call(capability: str, tool: str) -> SpanScope:
    """The client span of one proxy call (failovers included); the transport sends its context."""
    if state.tracer is None and state.spans is None:
        return NOOP
    if state.tracer is None:
        parent = light_context.get()
        if parent is UNKEPT:
            return NOOP
        if parent is None:  # a call made outside any incoming call starts a trace, within the budget
            budget = state.budget
            if budget.left <= 0:
                return _Unkept()
            budget.left -= 1
        return _ConsoleSpan(f"tools/call {tool}", "CLIENT", f"{state.agent}: {capability}", parent)
    attributes = {"mcp.method.name": "tools/call", "gen_ai.tool.name": tool, "mesh.capability": capability}
    return _Span(f"tools/call {tool}", "CLIENT", attributes, detail=f"{state.agent}: {capability}")


def registry_call(method: str, url: str, name: str) -> SpanScope:
    """The client span of one registry request (`name`: the route, without ids)."""
    # The console keeps only registry calls made inside a trace it keeps, not every agent's heartbeats.
    parent = light_context.get()
    console = state.spans is not None and parent is not None and parent is not UNKEPT
    if state.tracer is None:
        if not console:
            return NOOP
        return _ConsoleSpan(f"registry {method} {name}", "CLIENT", state.agent, parent)
    attributes = {"http.request.method": method, "url.full": url}
    return _Span(f"registry {method} {name}", "CLIENT", attributes, detail=state.agent, console=console)


def llm_iteration(label: str, iteration: int) -> SpanScope:
    """One turn of an LLM tool loop: the model's answer and the tools it asked for."""
    if state.tracer is None:
        parent = light_context.get()
        if state.spans is None or parent is UNKEPT:
            return NOOP
        return _ConsoleSpan(f"llm iteration {iteration + 1}", "INTERNAL", f"{state.agent}: {label}", parent)
    attributes = {
        "gen_ai.operation.name": "chat",
        "mesh.llm.label": label,
        "mesh.llm.iteration": iteration,
    }
    return _Span(f"llm iteration {iteration + 1}", "INTERNAL", attributes, detail=f"{state.agent}: {label}")
