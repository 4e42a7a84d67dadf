"""`Drain`: an agent on its way out refuses new MCP calls (503 with `Retry-After`) and counts those in flight
and its open route streams; `OpenStreams`: streams being served (streamed tool calls, route event streams),
which a stop that reaches the end of its grace ends, each with an error, rather than waiting for them.

A 503 with `Retry-After` tells a mesh consumer the call was not processed, so it tries another provider
(see `mesh/transport.py`); the answer also closes the connection, so no pooled connection is left to a
socket about to close.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

__all__ = ["Drain", "OpenStreams"]

_BODY = (
    b'{"jsonrpc":"2.0","id":null,"error":{"code":-32000,'
    b'"message":"agent is shutting down; call another provider or retry later"}}'
)
_HEADERS = [
    (b"content-type", b"application/json"),
    (b"retry-after", b"1"),
    (b"connection", b"close"),
    (b"content-length", str(len(_BODY)).encode()),
]


class OpenStreams:
    """The streams being served, by the task producing each, so a stopping agent can end them (`end_all`)
    instead of waiting for streams that may never end."""

    __slots__ = ("_tasks", "ended")

    def __init__(self) -> None:
        self._tasks: set[asyncio.Future[Any]] = set()
        self.ended = False

    def __len__(self) -> int:
        return len(self._tasks)

    def add(self, task: asyncio.Future[Any]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def end_all(self) -> int:
        """Cancel every open stream's producer (each then ends its answer with an error saying the agent
        stopped, after the chunks it sent: `ended` tells it why); how many."""
        self.ended = True
        tasks = [t for t in self._tasks if not t.done()]
        for task in tasks:
            task.cancel()
        return len(tasks)


class Drain:
    """Calls in flight on the MCP path (`in_flight`, streamed tool calls included), route streams being
    answered (`route_streams`, their generators in `streams`), and whether new MCP calls are refused."""

    __slots__ = ("_idle", "draining", "in_flight", "last_call", "route_streams", "streams")

    def __init__(self) -> None:
        self.draining = False
        self.in_flight = 0
        self.route_streams = 0
        self.last_call = 0.0
        self.streams = OpenStreams()
        self._idle: asyncio.Event | None = None

    @property
    def busy(self) -> int:
        """What a stop waits for: calls in flight and route streams being answered."""
        return self.in_flight + self.route_streams

    def begin(self) -> None:
        """Refuse new calls from now on."""
        self.draining = True

    def enter(self) -> None:
        self.in_flight += 1
        self.last_call = time.monotonic()

    def leave(self) -> None:
        self.in_flight -= 1
        self._check_idle()

    def stream_started(self, producer: asyncio.Future[Any]) -> None:
        """A route stream starts: a stop waits for its answer like a call in flight, or ends `producer`."""
        self.route_streams += 1
        self.last_call = time.monotonic()
        self.streams.add(producer)

    def stream_ended(self) -> None:
        """The route stream's answer is complete (or its client left)."""
        self.route_streams -= 1
        self._check_idle()

    def _check_idle(self) -> None:
        if self._idle is not None and self.busy == 0:
            self._idle.set()

    async def refuse(self, send: Any) -> None:
        self.last_call = time.monotonic()
        await send({"type": "http.response.start", "status": 503, "headers": _HEADERS})
        await send({"type": "http.response.body", "body": _BODY})

    async def settle(self, grace: float, quiet: float) -> bool:
        """Wait until no call is in flight nor route stream open and no call has arrived for `quiet` seconds,
        at most `grace` seconds; true when it settled in time."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        while (remaining := deadline - loop.time()) > 0:
            if self.busy:
                self._idle = asyncio.Event()
                try:
                    await asyncio.wait_for(self._idle.wait(), timeout=remaining)
                except TimeoutError:
                    return False
                finally:
                    self._idle = None
                continue
            idle_for = time.monotonic() - self.last_call
            if idle_for >= quiet:
                return True
            await asyncio.sleep(min(quiet - idle_for, remaining))
        return self.busy == 0
