"""Open event streams that carry list-change notifications to clients, for both protocol eras.

A stateless server has one kind of channel for notifications that belong to no request: a stream the
client opens and keeps reading. Handshake-era clients open it with `GET` on the MCP path; 2026-07-28
clients with a `subscriptions/listen` request, whose answer is the stream (SEP-2575). `ChangeStreams`
keeps the streams open now, hands each the notifications it asked for, ends each when its client goes,
and ends them all when the agent stops (`close`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from pydantic_core import to_json

from ..sse import MEDIA_TYPE, encode, wait_for_disconnect

__all__ = ["MAX_BACKLOG", "MAX_STREAMS", "ChangeStreams", "StreamLimitError"]

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

MAX_STREAMS = 256  # open at once per agent; each also holds one of server.max_concurrency's slots
MAX_BACKLOG = 64  # notifications waiting for a client that stopped reading; past it, its stream ends
_SSE_HEADERS = [(b"content-type", MEDIA_TYPE.encode()), (b"cache-control", b"no-cache")]


class StreamLimitError(Exception):
    """MAX_STREAMS streams are open already."""


class _Stream:
    __slots__ = ("backlog", "closing", "overflowed", "render", "wake", "wants")

    def __init__(self, wants: frozenset[str], render: Callable[[str], dict[str, Any]]) -> None:
        self.wants = wants
        self.render = render
        self.backlog: deque[str] = deque()
        self.wake = asyncio.Event()
        self.closing = False
        self.overflowed = False


class ChangeStreams:
    """The agent's open notification streams."""

    def __init__(self, limit: int = MAX_STREAMS) -> None:
        self.limit = limit
        self._streams: set[_Stream] = set()

    def __len__(self) -> int:
        return len(self._streams)

    def publish(self, method: str) -> None:
        """Send the notification `method` (e.g. `notifications/tools/list_changed`) to every stream that
        asked for it."""
        for stream in list(self._streams):
            if method not in stream.wants:
                continue
            if len(stream.backlog) >= MAX_BACKLOG:
                stream.overflowed = True  # its client stopped reading: end it (it lists again later)
                self._streams.discard(stream)
            else:
                stream.backlog.append(method)
            stream.wake.set()

    def close(self) -> None:
        """End every stream: each sends its closing frame (if it has one) and finishes its response."""
        for stream in self._streams:
            stream.closing = True
            stream.wake.set()
        self._streams.clear()

    async def serve(
        self,
        send: Send,
        receive: Receive,
        *,
        wants: Iterable[str],
        render: Callable[[str], dict[str, Any]],
        first: Iterable[dict[str, Any]] = (),
        last: dict[str, Any] | None = None,
    ) -> None:
        """Answer one request with a stream: the `first` messages, then `render(method)` for each
        notification it `wants`, until its client disconnects or `close()`, which sends `last`.
        Raises StreamLimitError (before answering) when MAX_STREAMS are open."""
        if len(self._streams) >= self.limit:
            raise StreamLimitError(f"{self.limit} notification streams are open already; try again later")
        stream = _Stream(frozenset(wants), render)
        self._streams.add(stream)  # before the first frame: a change meanwhile is not lost
        gone = asyncio.ensure_future(wait_for_disconnect(receive))
        try:
            await send({"type": "http.response.start", "status": 200, "headers": _SSE_HEADERS})
            for message in first:
                await send({"type": "http.response.body", "body": _frame(message), "more_body": True})
            while True:
                woken = asyncio.ensure_future(stream.wake.wait())
                await asyncio.wait((woken, gone), return_when=asyncio.FIRST_COMPLETED)
                woken.cancel()
                if gone.done():
                    return
                stream.wake.clear()
                while stream.backlog:
                    message = render(stream.backlog.popleft())
                    await send({"type": "http.response.body", "body": _frame(message), "more_body": True})
                if stream.closing or stream.overflowed:
                    final = _frame(last) if stream.closing and last is not None else b""
                    await send({"type": "http.response.body", "body": final})
                    return
        finally:
            self._streams.discard(stream)
            gone.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await gone


def _frame(message: dict[str, Any]) -> bytes:
    return encode(to_json(message), event="message")
