"""`SpanTracer`: the tracing feature's `Tracer` (observation.py), the one an agent installs: OpenTelemetry
spans while `tracing.enabled`, the console's spans while a registry gathers them, the call's ids in JSON
logs; trace context carried on outgoing requests. Its first traced call loads the span helpers (spans.py)
and binds them on the tracer: from then on its methods are the helpers themselves, so a call pays what it
paid before the core called them through its tracer, and an agent is built and answers its first
`tools/list` without them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..config.settings import TracingSettings
from ..observation import SpanScope, Tracer
from .setup import configure_tracing
from .state import state

__all__ = ["SpanTracer"]

# The span helpers bound on the tracer by its first traced call (spans.py's functions of these names).
_HELPERS = (
    "incoming_call",
    "incoming_request",
    "outbound_call",
    "registry_call",
    "llm_iteration",
    "record_result",
)


class SpanTracer(Tracer):
    """Started when the agent is built: the process's tracing from `settings` (`configure_tracing`)."""

    def __init__(self, settings: TracingSettings, *, agent: str, json_logs: bool) -> None:
        self.settings = settings
        self.agent = agent
        self.json_logs = json_logs

    def start(self) -> None:
        configure_tracing(self.settings, agent=self.agent, json_logs=self.json_logs)

    def _bound(self) -> Any:
        """The span helpers' module, its helpers bound on this tracer (instance attributes, found before
        the methods below), and the trace context's carrier as `inject`."""
        from . import spans
        from .carriers import inject_trace

        for name in _HELPERS:
            setattr(self, name, getattr(spans, name))

        def inject(method: str, params: dict[str, Any], headers: dict[str, str]) -> None:
            if state.tracer is not None or state.spans is not None:  # else no trace to carry
                inject_trace(method, params, headers)

        self.inject = inject  # type: ignore[method-assign]
        return spans

    def incoming_call(
        self,
        tool: str,
        rpc_id: Any,
        params: Mapping[str, Any],
        raw_headers: Iterable[tuple[bytes, bytes]],
        *,
        trace_headers: bool = True,
    ) -> SpanScope:
        scope: SpanScope = self._bound().incoming_call(
            tool, rpc_id, params, raw_headers, trace_headers=trace_headers
        )
        return scope

    def incoming_request(
        self, method: str, route: str, raw_headers: Iterable[tuple[bytes, bytes]]
    ) -> SpanScope:
        scope: SpanScope = self._bound().incoming_request(method, route, raw_headers)
        return scope

    def outbound_call(self, capability: str, tool: str) -> SpanScope:
        scope: SpanScope = self._bound().outbound_call(capability, tool)
        return scope

    def registry_call(self, method: str, url: str, name: str) -> SpanScope:
        scope: SpanScope = self._bound().registry_call(method, url, name)
        return scope

    def llm_iteration(self, label: str, iteration: int) -> SpanScope:
        scope: SpanScope = self._bound().llm_iteration(label, iteration)
        return scope

    def record_result(self, result: Mapping[str, Any]) -> None:
        self._bound().record_result(result)

    def inject(self, method: str, params: dict[str, Any], headers: dict[str, str]) -> None:
        self._bound()
        self.inject(method, params, headers)
