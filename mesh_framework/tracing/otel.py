"""OpenTelemetry's API, imported on first use: by the first span or trace context of a process that traces.
A process that does not trace never loads it."""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace

__all__ = ["api"]


@cache
def api() -> SimpleNamespace:
    """`context`, `trace` and the `trace` names the tracing modules use."""
    from opentelemetry import context, trace
    from opentelemetry.trace import (
        NonRecordingSpan,
        SpanContext,
        SpanKind,
        Status,
        StatusCode,
        TraceFlags,
        TraceState,
    )

    return SimpleNamespace(
        context=context,
        trace=trace,
        NonRecordingSpan=NonRecordingSpan,
        SpanContext=SpanContext,
        SpanKind=SpanKind,
        Status=Status,
        StatusCode=StatusCode,
        TraceFlags=TraceFlags,
        TraceState=TraceState,
    )
