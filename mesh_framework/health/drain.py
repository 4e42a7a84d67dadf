"""`Drain`: an agent on its way out refuses new MCP calls (503 with `Retry-After`) and counts those in flight.

A 503 with `Retry-After` tells a mesh consumer the call was not processed, so it tries another provider
(see `mesh/transport.py`); the answer also closes the connection, so no pooled connection is left to a
socket about to close.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

__all__ = ["Drain"]

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


class Drain:
    """Calls in flight on the MCP path, and whether new ones are refused."""

    __slots__ = ("_idle", "draining", "in_flight", "last_call")

    def __init__(self) -> None:
        self.draining = False
        self.in_flight = 0
        self.last_call = 0.0
        self._idle: asyncio.Event | None = None

    def begin(self) -> None:
        """Refuse new calls from now on."""
        self.draining = True

    def enter(self) -> None:
        self.in_flight += 1
        self.last_call = time.monotonic()

    def leave(self) -> None:
        self.in_flight -= 1
        if self.in_flight == 0 and self._idle is not None:
            self._idle.set()

    async def refuse(self, send: Any) -> None:
        self.last_call = time.monotonic()
        await send({"type": "http.response.start", "status": 503, "headers": _HEADERS})
        await send({"type": "http.response.body", "body": _BODY})

    async def settle(self, grace: float, quiet: float) -> bool:
        """Wait until no call is in flight and none has arrived for `quiet` seconds, at most `grace`
        seconds; true when it settled in time."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        while (remaining := deadline - loop.time()) > 0:
            if self.in_flight:
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
        return self.in_flight == 0
