"""A lean HTTP/1.1 client for the proxies' calls over plain http: one write per request, httptools (uvicorn's
C parser) for the answer, keep-alive connections reused per host.

httpx2 spends ~0.4 ms of CPU per request in its request and header models, httpcore2's pool and h11, six
to seven times what the request itself costs; on a call through two agents that is most of the consumer's
time. A proxy's `tools/call` is one POST with a small body whose whole answer is read before it is used,
which needs none of that: this client writes the request in one piece and parses the answer in C.

What httpx2 and the pool (`http_pool.py`) do for the proxies, this does too: idle connections are dropped
once older than `keepalive_expiry` (before the peers drop them), a connection that fails to open raises
`ConnectFailed` (nothing was sent: another provider may take the call), and a request that met a reused
connection the peer had just closed is sent once more on a fresh one only when it is idempotent. TLS,
streamed answers and anything else go through httpx2 (`transport.py` decides).

A connection serves the event loop that opened it. The client can outlive a loop (a sync caller or a test
runs `asyncio.run` once per call): the idle connections of a loop are closed as it shuts down, while it can
still run their transports' closing, and one met later on a loop that has ended is never reused.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
import weakref
from collections.abc import AsyncGenerator
from typing import Any

import httptools

from ..deadline import within

__all__ = ["ConnectFailed", "ConnectionBroken", "DirectHttp", "DirectResponse"]

_MAX_IDLE = 64  # idle connections kept per host


class ConnectFailed(Exception):
    """The connection could not be opened: the request was not sent."""


class ConnectionBroken(Exception):
    """The connection failed before the whole answer arrived (the request may have been processed);
    `stale`: it was a reused connection that received nothing, so the peer had closed it."""

    def __init__(self, message: str, *, stale: bool = False) -> None:
        super().__init__(message)
        self.stale = stale


class DirectResponse:
    """An answer read whole: status, the two headers the transport reads, and the body."""

    __slots__ = ("body", "content_type", "retry_after", "status")

    def __init__(self, status: int, content_type: str, retry_after: bool, body: bytes) -> None:
        self.status = status
        self.content_type = content_type
        self.retry_after = retry_after
        self.body = body


class _Connection(asyncio.Protocol):
    """One keep-alive connection; `exchange` sends a request and waits for its whole answer."""

    def __init__(self) -> None:
        self.parser = httptools.HttpResponseParser(self)
        self.transport: asyncio.Transport | None = None
        self.loop = asyncio.get_running_loop()  # a connection serves the loop that opened it
        self.waiter: asyncio.Future[DirectResponse] | None = None
        self.closed = False
        self.used = False  # answered a request before (a reused connection)
        self.received = False  # bytes of the current answer arrived
        self.idle_since = 0.0
        self._content_type = ""
        self._retry_after = False
        self._framed = False  # the answer's length is known (Content-Length or chunked), not "until close"
        self._head_read = False
        self._body: list[bytes] = []

    # -- asyncio.Protocol ----------------------------------------------------------------------------

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data: bytes) -> None:
        self.received = True
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(ConnectionBroken(f"invalid HTTP answer ({exc})"))
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self._head_read and not self._framed and exc is None:
            self.on_message_complete()  # an answer without a length ends with the connection
        if self.waiter is not None and not self.waiter.done():
            stale = self.used and not self.received
            reason = f"{type(exc).__name__}: {exc}" if exc else "the server closed the connection"
            self._fail(ConnectionBroken(reason, stale=stale))

    # -- httptools callbacks -------------------------------------------------------------------------

    def on_message_begin(self) -> None:
        self._content_type, self._retry_after, self._body = "", False, []
        self._framed = self._head_read = False

    def on_header(self, name: bytes, value: bytes) -> None:
        name = name.lower()
        if name == b"content-type":
            self._content_type = value.decode("latin-1")
        elif name == b"retry-after":
            self._retry_after = True
        elif name in (b"content-length", b"transfer-encoding"):
            self._framed = True

    def on_headers_complete(self) -> None:
        self._head_read = True

    def on_body(self, body: bytes) -> None:
        self._body.append(body)

    def on_message_complete(self) -> None:
        self._head_read = False
        waiter, self.waiter = self.waiter, None
        body = self._body[0] if len(self._body) == 1 else b"".join(self._body)
        response = DirectResponse(self.parser.get_status_code(), self._content_type, self._retry_after, body)
        if not self.parser.should_keep_alive():
            self.close()
        if waiter is not None and not waiter.done():
            waiter.set_result(response)

    # -- use -----------------------------------------------------------------------------------------

    async def exchange(self, request: bytes) -> DirectResponse:
        assert self.transport is not None
        self.received = False
        self.waiter = waiter = self.loop.create_future()
        self.transport.write(request)
        response: DirectResponse = await waiter
        self.used = True
        return response

    def _fail(self, exc: Exception) -> None:
        waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(exc)

    def close(self) -> None:
        self.closed = True
        if self.transport is None:
            return
        if self.loop.is_closed():
            # Its transport can no longer close (the loop would run that), and the loop is not touched: the
            # TCP connection is ended so the peer drops it now; the descriptor goes with the transport.
            sock = self.transport.get_extra_info("socket")
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            self.transport.close()
        else:  # from another loop (a client used by several): on its own loop's thread
            self.loop.call_soon_threadsafe(self.transport.close)


class DirectHttp:
    """Keep-alive connections per (host, port), for POSTs over plain http."""

    def __init__(self, keepalive_expiry: float = 4.0) -> None:
        self.keepalive_expiry = keepalive_expiry
        self._idle: dict[tuple[str, int], list[_Connection]] = {}
        # per event loop with connections, the async generator that closes them when the loop shuts down
        self._watches: dict[asyncio.AbstractEventLoop, AsyncGenerator[None, None]] = {}

    async def post(
        self, host: str, port: int, request: bytes, *, timeout: float | None, idempotent: bool = False
    ) -> DirectResponse:
        """Send `request` (a whole HTTP/1.1 request, head and body) and read the answer, within `timeout`
        seconds (None: no bound; `deadline.Expired` when it passes). Raises ConnectFailed or
        ConnectionBroken."""
        running = self._post(host, port, request, idempotent)
        return await (running if timeout is None else within(timeout, running))

    async def _post(self, host: str, port: int, request: bytes, idempotent: bool) -> DirectResponse:
        key = (host, port)
        connection = self._take(key)
        if connection is None:
            connection = await self._connect(host, port)
        try:
            try:
                response = await connection.exchange(request)
            except ConnectionBroken as exc:
                if not (exc.stale and idempotent):
                    raise
                connection = await self._connect(host, port)  # the peer closed it idle: once more
                response = await connection.exchange(request)
        except BaseException:
            connection.close()  # cancelled or failed mid-answer: its state is unknown
            raise
        if not connection.closed:
            self._give_back(key, connection)
        return response

    def _take(self, key: tuple[str, int]) -> _Connection | None:
        idle = self._idle.get(key)
        if not idle:
            return None
        oldest_kept = time.monotonic() - self.keepalive_expiry
        loop = asyncio.get_running_loop()
        while idle:
            connection = idle.pop()
            if connection.closed or connection.idle_since < oldest_kept or connection.loop is not loop:
                connection.close()
                continue
            return connection
        return None

    def _give_back(self, key: tuple[str, int], connection: _Connection) -> None:
        idle = self._idle.setdefault(key, [])
        if len(idle) >= _MAX_IDLE:
            connection.close()
            return
        connection.idle_since = time.monotonic()
        idle.append(connection)

    async def _connect(self, host: str, port: int) -> _Connection:
        loop = asyncio.get_running_loop()
        if loop not in self._watches:
            await self._watch(loop)
        try:
            _transport, connection = await loop.create_connection(_Connection, host, port)
        except OSError as exc:
            raise ConnectFailed(str(exc) or type(exc).__name__) from None
        return connection

    async def _watch(self, loop: asyncio.AbstractEventLoop) -> None:
        for ended in [other for other in list(self._watches) if other.is_closed()]:
            self._watches.pop(ended, None)  # closed without shutting down its async generators
        watch = self._watches[loop] = self._closing_with(weakref.ref(loop))
        await anext(watch)  # its first step registers it with the running loop

    async def _closing_with(self, loop: weakref.ref[asyncio.AbstractEventLoop]) -> AsyncGenerator[None, None]:
        """Waits for its loop's end: a loop closes the async generators it started when it shuts down
        (`shutdown_asyncgens`, which `asyncio.run` calls before closing the loop), and then this closes the
        loop's idle connections, on the loop, which still runs their transports' closing."""
        try:
            yield
        finally:
            ending = loop()
            if ending is not None:
                self._close_connections_of(ending)

    def _close_connections_of(self, loop: asyncio.AbstractEventLoop) -> None:
        self._watches.pop(loop, None)
        for idle in self._idle.values():
            ending = [connection for connection in idle if connection.loop is loop]
            idle[:] = [connection for connection in idle if connection.loop is not loop]
            for connection in ending:
                connection.close()

    def close(self) -> None:
        """Close every idle connection."""
        for idle in self._idle.values():
            for connection in idle:
                connection.close()
        self._idle.clear()
