"""httpcore2's network layer on asyncio streams, for the process's HTTP clients.

httpx2 reaches the network through httpcore2, whose default backend goes through anyio: a cancel scope,
a task check and a stream wrapper around every read and write, ~100 µs of CPU per request on this path.
The framework runs on asyncio only, so this backend (httpcore2's `network_backend` extension point) talks
to asyncio's streams directly, its timeouts from `deadline.py`.

It also sends a request in one piece: httpcore2 writes a request's head and its body separately, two
`send` calls and two segments for the server to read. The stream keeps what it is given until httpcore2
reads the answer (or more than `WRITE_BUFFER` bytes wait), then writes it at once.

httpx2 has no option for the backend: `on_asyncio_network` sets it on the pool httpx2 built, a private
attribute. On an httpx2 outside the tested versions (`tested_versions.py`) it leaves the pool as it is
(httpx2's own network layer, slower but public) and says so once.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import select
import socket
import ssl
from collections.abc import Awaitable, Iterable
from typing import Any, TypeVar

import httpcore2
import httpx2

from ..deadline import Expired, within
from ..tested_versions import is_tested, untested_message

__all__ = ["WRITE_BUFFER", "AsyncioBackend", "AsyncioStream", "on_asyncio_network"]

WRITE_BUFFER = 64 * 1024
"""Bytes a stream keeps before writing them without waiting for the read (a large body goes out as it
comes)."""

logger = logging.getLogger(__name__)

T = TypeVar("T")
SocketOption = tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]


class AsyncioStream(httpcore2.AsyncNetworkStream):
    """One connection: an asyncio stream pair."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._unsent: list[bytes] = []
        self._unsent_size = 0

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        if self._unsent:
            # As httpcore2 does when a body cannot be written: read on, a server that closed the request
            # early may have answered it (a 413, say); a connection that is gone reads as its end.
            with contextlib.suppress(httpcore2.WriteError):
                await self._send(timeout)
        try:
            return await _bounded(timeout, self._reader.read(max_bytes))
        except Expired:
            raise httpcore2.ReadTimeout(f"no data within {timeout:g} s") from None
        except OSError as exc:
            raise httpcore2.ReadError(str(exc) or type(exc).__name__) from exc

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        self._unsent.append(buffer)
        self._unsent_size += len(buffer)
        if self._unsent_size > WRITE_BUFFER:
            await self._send(timeout)

    async def _send(self, timeout: float | None) -> None:
        data = b"".join(self._unsent)
        self._unsent.clear()
        self._unsent_size = 0
        writer = self._writer
        if writer.transport.is_closing():
            raise httpcore2.WriteError("the connection is closed")
        try:
            writer.write(data)
            if writer.transport.get_write_buffer_size():  # the socket did not take it all at once
                await _bounded(timeout, writer.drain())
        except Expired:
            raise httpcore2.WriteTimeout(f"could not write within {timeout:g} s") from None
        except OSError as exc:
            raise httpcore2.WriteError(str(exc) or type(exc).__name__) from exc

    async def aclose(self) -> None:
        self._unsent.clear()
        self._writer.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        if self._unsent:
            await self._send(timeout)
        try:
            await _bounded(timeout, self._writer.start_tls(ssl_context, server_hostname=server_hostname))
        except Expired:
            await self.aclose()
            raise httpcore2.ConnectTimeout(f"TLS handshake not done within {timeout:g} s") from None
        except (OSError, ssl.SSLError) as exc:
            await self.aclose()
            raise httpcore2.ConnectError(str(exc) or type(exc).__name__) from exc
        return self

    def get_extra_info(self, info: str) -> Any:
        writer = self._writer
        if info == "ssl_object":
            return writer.get_extra_info("ssl_object")
        if info == "client_addr":
            return writer.get_extra_info("sockname")
        if info == "server_addr":
            return writer.get_extra_info("peername")
        if info == "socket":
            return writer.get_extra_info("socket")
        if info == "is_readable":
            # An idle connection is readable when its peer closed it (or sent something unasked). The
            # transport reads the socket on its own, so an end already read shows in the reader.
            if self._reader.at_eof() or writer.transport.is_closing():
                return True
            return _readable(writer.get_extra_info("socket"))
        return None


def _readable(sock: socket.socket | None) -> bool:
    """Whether the socket has data (or its end) waiting, without reading it."""
    if sock is None or sock.fileno() < 0:
        return True
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(0))


class AsyncioBackend(httpcore2.AsyncNetworkBackend):
    """Opens `AsyncioStream`s."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        local = (local_address, 0) if local_address else None
        return await _connect(asyncio.open_connection(host, port, local_addr=local), timeout, socket_options)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        return await _connect(asyncio.open_unix_connection(path), timeout, socket_options)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


async def _connect(
    opening: Awaitable[tuple[asyncio.StreamReader, asyncio.StreamWriter]],
    timeout: float | None,
    socket_options: Iterable[SocketOption] | None,
) -> AsyncioStream:
    try:
        reader, writer = await _bounded(timeout, opening)
    except Expired:
        raise httpcore2.ConnectTimeout(f"not connected within {timeout:g} s") from None
    except OSError as exc:
        raise httpcore2.ConnectError(str(exc) or type(exc).__name__) from exc
    sock = writer.get_extra_info("socket")
    for option in socket_options or ():
        sock.setsockopt(*option)
    return AsyncioStream(reader, writer)


async def _bounded(timeout: float | None, running: Awaitable[T]) -> T:
    """`running`'s result, within `timeout` seconds when one is given (httpcore2's None: no bound)."""
    return await (running if timeout is None else within(timeout, running))


def on_asyncio_network(transport: httpx2.AsyncHTTPTransport) -> httpx2.AsyncHTTPTransport:
    """`transport` with its connection pool on `AsyncioBackend` (httpx2 builds the pool; only its network
    backend changes, before any connection exists). On an untested httpx2, `transport` as it is."""
    if not _backend_replaceable():
        return transport
    transport._pool._network_backend = AsyncioBackend()
    return transport


@functools.cache
def _backend_replaceable() -> bool:
    """Whether this httpx2 is one the backend swap was tested with; if not, logged once."""
    if is_tested("httpx2", httpx2.__version__):
        return True
    use = "replaces the network backend of httpx2's connection pool (one write per request, no anyio)"
    logger.warning(
        "%s; using httpx2's own network layer", untested_message("httpx2", httpx2.__version__, use)
    )
    return False
