"""`SpanTracer`: the tracing feature's `Tracer` (observation.py), the one an agent installs: OpenTelemetry
spans while `tracing.enabled`, the console's spans while a registry gathers them, the call's ids in JSON
logs; trace context carried on outgoing requests. Its methods are the span helpers themselves (spans.py),
so a call pays what it paid before the core called them through its tracer."""

from __future__ import annotations

from typing import Any

from ..config.settings import TracingSettings
from ..observation import Tracer
from . import spans
from .carriers import inject_trace
from .setup import configure_tracing
from .state import state

__all__ = ["SpanTracer"]


def _inject(method: str, params: dict[str, Any], headers: dict[str, str]) -> None:
    if state.tracer is not None or state.spans is not None:  # else no trace to carry
        inject_trace(method, params, headers)


class SpanTracer(Tracer):
    """Started when the agent is built: the process's tracing from `settings` (`configure_tracing`)."""

    incoming_call = staticmethod(spans.incoming_call)
    incoming_request = staticmethod(spans.incoming_request)
    outbound_call = staticmethod(spans.outbound_call)
    registry_call = staticmethod(spans.registry_call)
    llm_iteration = staticmethod(spans.llm_iteration)
    record_result = staticmethod(spans.record_result)
    inject = staticmethod(_inject)

    def __init__(self, settings: TracingSettings, *, agent: str, json_logs: bool) -> None:
        self.settings = settings
        self.agent = agent
        self.json_logs = json_logs

    def start(self) -> None:
        configure_tracing(self.settings, agent=self.agent, json_logs=self.json_logs)
