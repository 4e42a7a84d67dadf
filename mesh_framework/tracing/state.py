"""What this process traces and logs per call: one tracer (or none) and whether calls are logged.

Tracing is per process, as OpenTelemetry's own provider is: an agent is a process. The application sets
this at build time (`configure_tracing`); the hot paths read two attributes and do nothing more when
both are off.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from typing import Any

__all__ = ["CallInfo", "TracingState", "current_call", "state"]


@dataclass(frozen=True, slots=True)
class CallInfo:
    """The incoming tool call this code runs for: what structured logs name."""

    tool: str
    request_id: str


current_call: contextvars.ContextVar[CallInfo | None] = contextvars.ContextVar("mesh_call", default=None)


class TracingState:
    __slots__ = ("agent", "key", "log_calls", "provider", "tracer")

    def __init__(self) -> None:
        self.tracer: Any = None  # an opentelemetry Tracer while tracing is on
        self.provider: Any = None  # the SDK TracerProvider behind it
        self.key: Any = None  # the settings it was built from
        self.agent = ""
        self.log_calls = False  # structured logs want the call's tool and request id


state = TracingState()
