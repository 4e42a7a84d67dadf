"""What a job's body prints becomes job messages, line by line, without touching other output.

`sys.stdout`/`sys.stderr` are replaced once by a switch that writes to the job whose body is running in the
current context (a context variable, copied into `asyncio.to_thread` workers), and to the real stream
otherwise.
"""

from __future__ import annotations

import contextvars
import io
import sys
from collections.abc import Callable
from typing import Any, TextIO

__all__ = ["capturing", "install"]

LineSink = Callable[[str], None]

_CURRENT: contextvars.ContextVar[_Buffer | None] = contextvars.ContextVar("mesh_job_output", default=None)


class _Buffer:
    __slots__ = ("partial", "sink")

    def __init__(self, sink: LineSink) -> None:
        self.sink = sink
        self.partial = ""

    def write(self, text: str) -> None:
        lines = (self.partial + text).split("\n")
        self.partial = lines.pop()
        for line in lines:
            self.sink(line.rstrip("\r"))

    def flush(self) -> None:
        if self.partial:
            self.sink(self.partial)
            self.partial = ""


class _Switch(io.TextIOBase):
    """Stands in for a standard stream: the running job's buffer if there is one, else the real stream."""

    def __init__(self, real: TextIO) -> None:
        self.real = real

    def write(self, text: str) -> int:
        buffer = _CURRENT.get()
        if buffer is None:
            return self.real.write(text)
        buffer.write(text)
        return len(text)

    def flush(self) -> None:
        if _CURRENT.get() is None:
            self.real.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def install() -> None:
    """Put the switches in place (once; idempotent)."""
    if not isinstance(sys.stdout, _Switch):
        sys.stdout = _Switch(sys.stdout)
    if not isinstance(sys.stderr, _Switch):
        sys.stderr = _Switch(sys.stderr)


def capturing(sink: LineSink) -> tuple[contextvars.Token[_Buffer | None], _Buffer]:
    """Send this context's output to `sink` until `_CURRENT.reset(token)`; flush the buffer at the end."""
    install()
    buffer = _Buffer(sink)
    return _CURRENT.set(buffer), buffer


def release(token: contextvars.Token[_Buffer | None], buffer: _Buffer) -> None:
    buffer.flush()
    _CURRENT.reset(token)
