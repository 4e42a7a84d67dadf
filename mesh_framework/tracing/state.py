"""What this process traces and logs per call: one tracer (or none) and whether calls are logged.

Tracing is per process, as OpenTelemetry's own provider is: an agent is a process. The application sets
this when the agent is built (`configure_tracing`, from the tracer it installs: tracing/tracer.py); the hot
paths read three attributes and do nothing more when all are off. `CallInfo` and `current_call`, what
structured logs name, are the core's (mesh_framework/observation.py).

`spans` is the console's buffer (console_feed/): while a registry gathers this agent's spans, each finished
span is appended to it as a `SpanRecord`, with or without OpenTelemetry. Without OpenTelemetry the trace
context is carried in `light_context` (trace id, span id), which is all the console needs; `UNKEPT` there
marks a call the console does not trace (`budget`, sampling.py), and the calls it makes.
"""

from __future__ import annotations

import contextvars
from collections import deque
from typing import Any

from ..observation import CallInfo, current_call
from .sampling import TraceBudget

__all__ = ["UNKEPT", "CallInfo", "SpanRecord", "TracingState", "current_call", "light_context", "state"]

# (trace id, span id, parent span id or 0, name, kind, detail, start epoch seconds, seconds, error or "")
SpanRecord = tuple[int, int, int, str, str, str, float, float, str]

light_context: contextvars.ContextVar[tuple[int, int] | None] = contextvars.ContextVar(
    "mesh_light_span", default=None
)
UNKEPT: tuple[int, int] = (0, 0)  # in `light_context`: a call whose trace the console does not keep


class TracingState:
    __slots__ = ("agent", "budget", "key", "log_calls", "provider", "spans", "tracer")

    def __init__(self) -> None:
        self.tracer: Any = None  # an opentelemetry Tracer while tracing is on
        self.provider: Any = None  # the SDK TracerProvider behind it
        self.key: Any = None  # the settings it was built from
        self.agent = ""
        self.log_calls = False  # structured logs want the call's tool and request id
        self.spans: deque[SpanRecord] | None = None  # the console's buffer while a registry gathers spans
        self.budget = TraceBudget()  # the new traces the console keeps without OpenTelemetry


state = TracingState()
