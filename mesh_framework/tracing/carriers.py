"""Trace context on the wire, in and out.

In: W3C `traceparent` (and `tracestate`) in the request's `params._meta`, then the HTTP `traceparent`
header, then MCP Mesh's `X-Trace-ID`/`X-Parent-Span` headers, then its `_trace_id`/`_parent_span` tool
arguments. The first well-formed one wins; a malformed value is ignored (the call starts a new trace).

Out: all of them, so our agents and MCP Mesh's (which read the last two) continue the same trace.

Only a process that traces calls these (OpenTelemetry is loaded on first use, `otel.py`); a process that
only feeds the console (`state.spans`) reads and writes the same fields with `light_parent` and the
`light_context` variable, and never loads OpenTelemetry. A call the console does not trace (sampling.py)
sends only `X-Mesh-Sampled: 0`, so our agents it calls do not trace it either, and other agents see a call
with no trace, as they would from an agent without the console; an unsampled `traceparent` (flags 00) is
followed the same way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..observation import TRACE_HEADERS
from .otel import api
from .state import UNKEPT, light_context, state

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from opentelemetry.trace import SpanContext, TraceState

__all__ = [
    "TRACE_HEADERS",
    "format_traceparent",
    "inject_trace",
    "light_parent",
    "parent_context",
    "parse_traceparent",
]

_TRACEPARENT = re.compile(r"^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$")
_HEX32 = re.compile(r"^[0-9a-f]{32}$")
_HEX16 = re.compile(r"^[0-9a-f]{16}$")


def parse_traceparent(value: Any, tracestate: Any = None) -> SpanContext | None:
    """The remote span context a W3C `traceparent` names, or None when it is malformed."""
    if not isinstance(value, str):
        return None
    match = _TRACEPARENT.match(value.strip())
    if match is None:
        return None
    version, trace_id, span_id, flags, rest = match.groups()
    if version == "ff" or (version == "00" and rest):
        return None
    state = None
    if isinstance(tracestate, str) and tracestate:
        state = api().TraceState.from_header([tracestate])
    return _remote(int(trace_id, 16), int(span_id, 16), int(flags, 16), state)


def _mesh_ids(trace_id: Any, parent_span: Any) -> SpanContext | None:
    """MCP Mesh's pair: a 32-hex trace id and the caller's 16-hex span id (both needed)."""
    if not (isinstance(trace_id, str) and isinstance(parent_span, str)):
        return None
    trace_id, parent_span = trace_id.strip().lower(), parent_span.strip().lower()
    if not (_HEX32.match(trace_id) and _HEX16.match(parent_span)):
        return None
    return _remote(int(trace_id, 16), int(parent_span, 16), api().TraceFlags.SAMPLED, None)


def _remote(trace_id: int, span_id: int, flags: int, state: TraceState | None) -> SpanContext | None:
    otel = api()
    context = otel.SpanContext(
        trace_id, span_id, is_remote=True, trace_flags=otel.TraceFlags(flags), trace_state=state
    )
    return context if context.is_valid else None


def parent_context(
    params: Mapping[str, Any], raw_headers: Iterable[tuple[bytes, bytes]]
) -> tuple[Context | None, str]:
    """The caller's trace context of one `tools/call` and where it came from ("" when none)."""
    meta = params.get("_meta")
    if isinstance(meta, Mapping) and "traceparent" in meta:
        found = parse_traceparent(meta.get("traceparent"), meta.get("tracestate"))
        if found is not None:
            return _as_parent(found), "_meta"
    headers: dict[bytes, bytes] = {}
    for key, value in raw_headers:
        if key in (b"traceparent", b"tracestate", b"x-trace-id", b"x-parent-span"):
            headers[key] = value
    if b"traceparent" in headers:
        state = headers.get(b"tracestate", b"").decode("latin-1")
        found = parse_traceparent(headers[b"traceparent"].decode("latin-1"), state)
        if found is not None:
            return _as_parent(found), "traceparent"
    if b"x-trace-id" in headers:
        found = _mesh_ids(
            headers[b"x-trace-id"].decode("latin-1"), headers.get(b"x-parent-span", b"").decode("latin-1")
        )
        if found is not None:
            return _as_parent(found), "x-trace-id"
    arguments = params.get("arguments")
    if isinstance(arguments, Mapping) and "_trace_id" in arguments:
        found = _mesh_ids(arguments.get("_trace_id"), arguments.get("_parent_span"))
        if found is not None:
            return _as_parent(found), "_trace_id"
    return None, ""


def _light_traceparent(value: Any) -> tuple[int, int] | None:
    if not isinstance(value, str):
        return None
    match = _TRACEPARENT.match(value.strip())
    if match is None or match.group(1) == "ff" or (match.group(1) == "00" and match.group(5)):
        return None
    trace_id, span_id = int(match.group(2), 16), int(match.group(3), 16)
    if not (trace_id and span_id):
        return None
    return (trace_id, span_id) if int(match.group(4), 16) & 1 else UNKEPT


def _light_mesh(trace_id: Any, parent_span: Any) -> tuple[int, int] | None:
    if not (isinstance(trace_id, str) and isinstance(parent_span, str)):
        return None
    trace_id, parent_span = trace_id.strip().lower(), parent_span.strip().lower()
    if not (_HEX32.match(trace_id) and _HEX16.match(parent_span)):
        return None
    ids = int(trace_id, 16), int(parent_span, 16)
    return ids if all(ids) else None


def light_parent(
    params: Mapping[str, Any], raw_headers: Iterable[tuple[bytes, bytes]] | None
) -> tuple[int, int] | None:
    """The caller's (trace id, span id) of one `tools/call`, from the same fields in the same order as
    `parent_context`, without OpenTelemetry; `UNKEPT` when the caller does not trace the call, None when
    it sent no trace. `raw_headers` is None when the request has none of `TRACE_HEADERS`."""
    meta = params.get("_meta")
    if meta.__class__ is dict and "traceparent" in meta:
        found = _light_traceparent(meta.get("traceparent"))
        if found is not None:
            return found
    if raw_headers is not None:
        headers = dict(raw_headers)
        traceparent = headers.get(b"traceparent")
        if traceparent is not None:
            found = _light_traceparent(traceparent.decode("latin-1"))
            if found is not None:
                return found
        trace_id = headers.get(b"x-trace-id")
        if trace_id is not None:
            parent_span = headers.get(b"x-parent-span", b"").decode("latin-1")
            found = _light_mesh(trace_id.decode("latin-1"), parent_span)
            if found is not None:
                return found
        if headers.get(b"x-mesh-sampled") == b"0":
            return UNKEPT
    arguments = params.get("arguments")
    if arguments.__class__ is dict and "_trace_id" in arguments:
        return _light_mesh(arguments.get("_trace_id"), arguments.get("_parent_span"))
    return None


def _as_parent(span_context: SpanContext) -> Context:
    otel = api()
    parent: Context = otel.trace.set_span_in_context(otel.NonRecordingSpan(span_context))
    return parent


def format_traceparent(span_context: SpanContext) -> str:
    return f"00-{span_context.trace_id:032x}-{span_context.span_id:016x}-{int(span_context.trace_flags):02x}"


def inject_trace(method: str, params: dict[str, Any], headers: dict[str, str]) -> None:
    """Put the current span's context on an outgoing request (`params` and `headers` are the request's
    own copies). Nothing happens outside a span."""
    if state.tracer is None:  # only the console's spans: its light context
        ids = light_context.get()
        if ids is None:
            return
        if ids is UNKEPT:
            headers["X-Mesh-Sampled"] = "0"
            return
        trace_id, span_id = f"{ids[0]:032x}", f"{ids[1]:016x}"
        _inject(method, params, headers, (f"00-{trace_id}-{span_id}-01", trace_id, span_id, ""))
        return
    span_context = api().trace.get_current_span().get_span_context()
    if not span_context.is_valid:
        return
    traceparent = format_traceparent(span_context)
    trace_id, span_id = f"{span_context.trace_id:032x}", f"{span_context.span_id:016x}"
    state_header = span_context.trace_state.to_header() if span_context.trace_state else ""
    _inject(method, params, headers, (traceparent, trace_id, span_id, state_header))


def _inject(
    method: str, params: dict[str, Any], headers: dict[str, str], ids: tuple[str, str, str, str]
) -> None:
    traceparent, trace_id, span_id, tracestate = ids
    headers["traceparent"] = traceparent
    headers["X-Trace-ID"] = trace_id
    headers["X-Parent-Span"] = span_id
    meta = dict(params.get("_meta") or {})
    meta["traceparent"] = traceparent
    if tracestate:
        headers["tracestate"] = tracestate
        meta["tracestate"] = tracestate
    params["_meta"] = meta
    if method == "tools/call":
        arguments = params.get("arguments")
        params["arguments"] = {
            **(arguments if isinstance(arguments, Mapping) else {}),
            "_trace_id": trace_id,
            "_parent_span": span_id,
        }
