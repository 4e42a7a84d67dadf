"""Logging set-up for agents: one line per event, levels from settings; text or JSON (`logging.format`)."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any, Literal

__all__ = ["JsonFormatter", "configure_logging"]

FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, agent, and inside a tool call its tool,
    request id and trace and span ids (when tracing is on); an exception as `exc_info` text."""

    def __init__(self, agent: str = "") -> None:
        # imported here: a process logging text (every `mesh` command) needs neither
        from opentelemetry import trace

        from .observation import current_call

        super().__init__()
        self.agent = agent
        self._current_span = trace.get_current_span
        self._current_call = current_call

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if self.agent:
            entry["agent"] = self.agent
        call = self._current_call.get()
        if call is not None:
            entry["tool"] = call.tool
            entry["request_id"] = call.request_id
        span_context = self._current_span().get_span_context()
        if span_context.is_valid:
            entry["trace_id"] = f"{span_context.trace_id:032x}"
            entry["span_id"] = f"{span_context.span_id:016x}"
        if record.exc_info:
            entry["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to the `sys.stderr` of the moment, as logging's last-resort handler does: a handler made
    while stderr was redirected (a test's capture) never writes to the closed stream later."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


def configure_logging(
    level: str = "INFO", *, prefix: str = "", format: Literal["text", "json"] = "text", agent: str = ""
) -> None:
    """Send the framework's and uvicorn's logs to stderr, one line each (idempotent)."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_mesh", False):
            root.removeHandler(handler)
    handler = _StderrHandler()
    handler._mesh = True  # type: ignore[attr-defined]
    if format == "json":
        handler.setFormatter(JsonFormatter(agent))
    else:
        handler.setFormatter(logging.Formatter(prefix + FORMAT, datefmt="%H:%M:%S"))
    root.addHandler(handler)
    root.setLevel(level)
    # Per-request lines of the HTTP client (heartbeats, proxies) are noise at INFO.
    for chatty in ("httpx2", "httpcore2", "httpx", "httpcore"):
        logging.getLogger(chatty).setLevel(max(logging.WARNING, root.level))
