"""`Tracer`: what the core traces (the span of a served call, of a call to a dependency, of a registry
request, of an LLM iteration; a trace's context carried on an outgoing request) and the call that code
runs for (`current_call`, named by structured logs).

The core calls the process's current tracer, `observation.tracer`; the default does nothing and costs a
method call. The tracing feature (mesh_framework.tracing) contributes the real one as a `Tracer` bean,
which the agent's build starts and installs (`install`); an app with a `Tracer` bean of its own installs
that one instead.

The current tracer is per process, as OpenTelemetry's provider is (an agent is a process): the last app
built installs its own, or the no-op when it has none (the tracing feature excluded). Code that changes it
outside a build (a test) puts the one it found back (`install` returns it).
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterable, Mapping
from typing import Any

from ._frozen import frozen

__all__ = ["NOOP", "TRACE_HEADERS", "CallInfo", "SpanScope", "Tracer", "current_call", "install", "tracer"]

# The request headers a trace comes in: W3C trace context, MCP Mesh's trace ids and the console's
# "not sampled". The endpoint notes whether a request has any, so that a tracer reads the raw headers only
# then.
TRACE_HEADERS = frozenset({b"traceparent", b"tracestate", b"x-trace-id", b"x-parent-span", b"x-mesh-sampled"})


@frozen
class CallInfo:
    """The incoming tool call (or web request) this code runs for: what structured logs name."""

    tool: str
    request_id: str


# Set by the tracer for the duration of an incoming call when logs name it (JSON logs).
current_call: contextvars.ContextVar[CallInfo | None] = contextvars.ContextVar("mesh_call", default=None)


class SpanScope:
    """What code inside a traced block may add; this one, the no-op scope, ignores it all."""

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

    def status(self, code: int) -> None:
        """The HTTP status a web request was answered with: a 5xx marks the span as failed."""


NOOP = SpanScope()


class Tracer:
    """The core's tracing extension point: a bean of this type (the first, by order) traces the agent.
    Every method is called on the call path; this base class does nothing."""

    def start(self) -> None:
        """The agent is built and this tracer becomes the process's: set up what it needs (an
        OpenTelemetry provider)."""

    def incoming_call(
        self,
        tool: str,
        rpc_id: Any,
        params: Mapping[str, Any],
        raw_headers: Iterable[tuple[bytes, bytes]],
        *,
        trace_headers: bool = True,
    ) -> SpanScope:
        """The scope of one `tools/call` served (`params`: its JSON-RPC params, whose `_meta` and
        arguments may carry the caller's trace; `trace_headers`: False when none of `TRACE_HEADERS` came)."""
        return NOOP

    def incoming_request(
        self, method: str, route: str, raw_headers: Iterable[tuple[bytes, bytes]]
    ) -> SpanScope:
        """The scope of one web route request (`route`: its path template)."""
        return NOOP

    def outbound_call(self, capability: str, tool: str) -> SpanScope:
        """The scope of one call to a dependency, failovers included."""
        return NOOP

    def registry_call(self, method: str, url: str, name: str) -> SpanScope:
        """The scope of one registry request (`name`: its route, without ids)."""
        return NOOP

    def llm_iteration(self, label: str, iteration: int) -> SpanScope:
        """The scope of one turn of an LLM tool loop."""
        return NOOP

    def record_result(self, result: Mapping[str, Any]) -> None:
        """A `CallToolResult` of the current call, for code that holds no scope (a streamed answer)."""

    def inject(self, method: str, params: dict[str, Any], headers: dict[str, str]) -> None:
        """Put the current trace's context on an outgoing request (`params` and `headers`: the request's
        own copies)."""


tracer: Tracer = Tracer()


def install(new: Tracer) -> Tracer:
    """Make `new` the process's tracer (the agent's build calls its `start()` first); the one it replaces."""
    global tracer
    old, tracer = tracer, new
    return old
