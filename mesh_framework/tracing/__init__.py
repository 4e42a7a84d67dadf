"""OpenTelemetry traces across agents: spans for incoming tool calls, proxy calls, registry calls and LLM
iterations; W3C `traceparent` (and MCP Mesh's trace ids) carried to the next agent."""

from __future__ import annotations

from .carriers import format_traceparent, inject_trace, parent_context, parse_traceparent
from .setup import configure_tracing, tracer_provider
from .spans import SpanScope, incoming_call, llm_iteration, outbound_call, registry_call
from .state import CallInfo, current_call, state

__all__ = [
    "CallInfo",
    "SpanScope",
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
