"""OpenTelemetry traces across agents: spans for incoming tool calls, proxy calls, registry calls and LLM
iterations; W3C `traceparent` (and MCP Mesh's trace ids) carried to the next agent.

The names below are loaded on first use (PEP 562), but the process's tracing state: an agent that does not
trace loads none of the spans, carriers or OpenTelemetry set-up (tracing/auto_configuration.py decides).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

# Bound now, not lazily: importing the `state` module would otherwise make `tracing.state` that module.
# It is small (and the sampling budget it holds).
from .state import CallInfo, current_call, state

if TYPE_CHECKING:
    from .carriers import format_traceparent, inject_trace, parent_context, parse_traceparent
    from .setup import configure_tracing, tracer_provider
    from .spans import SpanScope, incoming_call, llm_iteration, outbound_call, registry_call
    from .tracer import SpanTracer

__all__ = [
    "CallInfo",
    "SpanScope",
    "SpanTracer",
    "configure_tracing",
    "current_call",
    "format_traceparent",
    "incoming_call",
    "inject_trace",
    "llm_iteration",
    "outbound_call",
    "parent_context",
    "parse_traceparent",
    "registry_call",
    "state",
    "tracer_provider",
]

_LOCATIONS = {
    "SpanScope": ".spans",
    "SpanTracer": ".tracer",
    "configure_tracing": ".setup",
    "format_traceparent": ".carriers",
    "incoming_call": ".spans",
    "inject_trace": ".carriers",
    "llm_iteration": ".spans",
    "outbound_call": ".spans",
    "parent_context": ".carriers",
    "parse_traceparent": ".carriers",
    "registry_call": ".spans",
    "tracer_provider": ".setup",
}


__getattr__, __dir__ = lazy_exports(__name__, _LOCATIONS, globals())
