"""The agent's HTTP protocol: uvicorn's httptools protocol with these changes.

- A bound on the time a client may take to send a request's headers (`server.header_timeout`). uvicorn
  bounds idle keep-alive connections but not a request whose headers trickle in: a slow-loris client could
  hold a connection for ever. A deadline is armed when a request begins, and cleared once the headers are
  complete; when it passes, the client gets `408 Request Timeout` and the connection is closed. A new
  connection must send its first byte sooner (`server.first_byte_timeout`), or it is closed: a crowd of
  connections that send nothing holds no more than sockets, for seconds.
- A bound on the size of a request's head (`server.max_header_bytes`), counted as it arrives: a larger
  head gets `431 Request Header Fields Too Large` and the connection is closed (httptools itself buffers
  a header of any size).
- One write per response. uvicorn writes a response's head as soon as the app sends
  `http.response.start`, and its body with `http.response.body`: two `send` system calls where one does.
  The transport the protocol hands to each request holds the head back until the body follows (at the
  latest until the event loop's next turn, so a streamed response's head is not delayed).
- A lingering close after a 413 (nginx's `lingering_close`). The app refuses an over-limit body without
  reading it and closes the connection; closing a socket with unread data resets it, and a client still
  writing its body (Python's urllib writes it all before reading) gets the reset, not the 413. So when a
  413 closes a connection whose request body is still arriving, the protocol keeps reading and dropping
  it, and closes once the body has ended or `server.body_timeout` has passed, whichever comes first.

All three lean on uvicorn's `HttpToolsProtocol` (its callbacks and its `transport` attribute), which
uvicorn does not promise to keep: start-up stops on a uvicorn outside the tested versions
(`tested_versions.py`), since falling back to uvicorn's own protocol would silently drop the header
timeout.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from ..deadline import Deadline, Deadlines
from ..errors import MeshError
from ..tested_versions import is_tested, untested_message

__all__ = ["agent_http_protocol"]

_RESPONSE_HEAD = b"HTTP/1.1 "
_END_OF_HEAD = b"\r\n\r\n"
_TOO_LARGE = b"HTTP/1.1 413 "


class _OneWriteTransport:
    """A transport that joins a response head with the write that follows it; `close` asks `linger`
    first, which may keep the connection reading a refused body (`close_now` ends it)."""

    __slots__ = ("_head", "_held", "_linger", "_loop", "_transport")

    def __init__(
        self,
        transport: asyncio.Transport,
        loop: asyncio.AbstractEventLoop,
        linger: Callable[[], bool] = lambda: False,
    ) -> None:
        self._transport = transport
        self._loop = loop
        self._linger = linger
        self._held: bytes | None = None
        self._head = b""  # the last response head written

    def write(self, data: bytes) -> None:
        held = self._held
        if held is not None:
            self._held = None
            self._transport.write(held + data)
        elif data.startswith(_RESPONSE_HEAD) and data.endswith(_END_OF_HEAD):
            self._held = self._head = data
            self._loop.call_soon(self.flush)
        else:
            self._transport.write(data)

    def flush(self) -> None:
        held = self._held
        if held is not None:
            self._held = None
            self._transport.write(held)

    def refused_too_large(self) -> bool:
        """Whether the last response was a 413."""
        return self._head.startswith(_TOO_LARGE)

    def close(self) -> None:
        self.flush()
        if not self._linger():
            self._transport.close()

    def close_now(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class _AgentHttpProtocol(HttpToolsProtocol):
    header_timeout = 30.0
    body_timeout = 30.0
    first_byte_timeout = 10.0
    max_header_bytes = 64 * 1024
    _header_deadline: Deadline | None = None
    _linger_deadline: Deadline | None = None
    _body_done = True  # the current request's body has been received whole (or there is no request)
    _in_head = True  # the bytes arriving belong to a request's head
    _head_bytes = 0  # bytes read while a head was incomplete
    _head_size = 0  # the request line and headers, as parsed
    _refused_head = False
    _boundaries = 0  # messages begun or ended on this connection

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.transport = _OneWriteTransport(transport, self.loop, self._linger)  # type: ignore[assignment]
        self._deadlines = Deadlines.of_loop(self.loop)
        self._arm(min(self.first_byte_timeout, self.header_timeout), self._no_first_byte)

    def data_received(self, data: bytes) -> None:
        if self._refused_head:
            return
        boundaries = self._boundaries
        super().data_received(data)
        # A head begun in an earlier read and still incomplete (httptools holds it): all of this read is
        # head. A head begun in this read is counted from the next read on (a read is at most 256 KiB),
        # and a head that ends in the read it began in is measured exactly (`on_headers_complete`).
        if self._in_head and boundaries == self._boundaries and not self._refused_head:
            self._head_bytes += len(data)
            if self._head_bytes > self.max_header_bytes:
                self._refuse_head()

    def on_url(self, url: bytes) -> None:
        self._head_size += len(url)
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_size += len(name) + len(value) + 4
        super().on_header(name, value)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._boundaries += 1
        self._body_done = False
        self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        self._in_head = False
        if self._head_size > self.max_header_bytes:  # a head that arrived whole in one read
            self._refuse_head()
            return
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        if not self._refused_head:
            super().on_body(body)

    def on_message_complete(self) -> None:
        if self._refused_head:
            return
        super().on_message_complete()
        self._boundaries += 1  # a message ended in this read: what follows it is counted from the next read
        self._body_done = True
        self._in_head = True
        self._head_bytes = self._head_size = 0
        if self._linger_deadline is not None:  # the refused body has ended: close now
            self._deadlines.clear(self._linger_deadline)
            self._linger_deadline = None
            self.transport.close_now()  # type: ignore[attr-defined]

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._linger_deadline is not None:
            self._deadlines.clear(self._linger_deadline)
            self._linger_deadline = None
        super().connection_lost(exc)

    def _arm(self, seconds: float | None = None, callback: Callable[[], None] | None = None) -> None:
        self._disarm()
        self._header_deadline = self._deadlines.arm(
            self.header_timeout if seconds is None else seconds, callback or self._headers_too_slow
        )

    def _no_first_byte(self) -> None:
        """A connection that sent nothing within `first_byte_timeout`: closed without an answer."""
        self._header_deadline = None
        if not self.transport.is_closing():
            self.transport.close_now()  # type: ignore[attr-defined]

    def _refuse_head(self) -> None:
        self._refused_head = True
        self._disarm()
        if self.transport.is_closing():
            return
        message = (
            f"Request head larger than {self.max_header_bytes} bytes (server.max_header_bytes); "
            "send fewer or shorter headers"
        )
        body = message.encode()
        self.transport.write(
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body
        )
        self.transport.close_now()  # type: ignore[attr-defined]

    def _disarm(self) -> None:
        if self._header_deadline is not None:
            self._deadlines.clear(self._header_deadline)
            self._header_deadline = None

    def _linger(self) -> bool:
        """Asked when the connection is to close: True to read and drop the rest of a refused body first
        (for at most `body_timeout` seconds), False to close at once."""
        if self._linger_deadline is not None:
            return True  # already lingering (uvicorn's keep-alive timer may ask again)
        if self._body_done or not self.transport.refused_too_large():  # type: ignore[attr-defined]
            return False
        self._linger_deadline = self._deadlines.arm(self.body_timeout, self._linger_over)
        return True

    def _linger_over(self) -> None:
        self._linger_deadline = None
        self.transport.close_now()  # type: ignore[attr-defined]

    def _headers_too_slow(self) -> None:
        self._header_deadline = None
        if self.transport.is_closing():
            return
        message = f"Request headers not received within {self.header_timeout:g} s (server.header_timeout)"
        body = message.encode()
        self.transport.write(
            b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body
        )
        self.transport.close()


def agent_http_protocol(
    header_timeout: float,
    body_timeout: float = 30.0,
    *,
    first_byte_timeout: float = 10.0,
    max_header_bytes: int = 64 * 1024,
) -> type[HttpToolsProtocol]:
    """uvicorn's HTTP protocol class bounding the time to receive a request's headers to `header_timeout`
    seconds (a new connection's first byte to `first_byte_timeout`) and their size to `max_header_bytes`,
    writing each response in one piece, and reading the rest of a body refused with 413 for up to
    `body_timeout` seconds before closing. Raises MeshError on an untested uvicorn."""
    if not is_tested("uvicorn", uvicorn.__version__):
        use = "extends uvicorn's HttpToolsProtocol (server.header_timeout, one write per response)"
        raise MeshError(untested_message("uvicorn", uvicorn.__version__, use))
    attributes = {
        "header_timeout": header_timeout,
        "body_timeout": body_timeout,
        "first_byte_timeout": first_byte_timeout,
        "max_header_bytes": max_header_bytes,
    }
    return type("AgentHttpProtocol", (_AgentHttpProtocol,), attributes)
