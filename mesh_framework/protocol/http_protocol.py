"""The agent's HTTP protocol: uvicorn's httptools protocol with two changes.

- A bound on the time a client may take to send a request's headers (`server.header_timeout`). uvicorn
  bounds idle keep-alive connections but not a request whose headers trickle in: a slow-loris client could
  hold a connection for ever. A deadline is armed when a connection opens and when a request begins, and
  cleared once the headers are complete; when it passes, the client gets `408 Request Timeout` and the
  connection is closed.
- One write per response. uvicorn writes a response's head as soon as the app sends
  `http.response.start`, and its body with `http.response.body`: two `send` system calls where one does.
  The transport the protocol hands to each request holds the head back until the body follows (at the
  latest until the event loop's next turn, so a streamed response's head is not delayed).

Both lean on uvicorn's `HttpToolsProtocol` (its callbacks and its `transport` attribute), which uvicorn
does not promise to keep: start-up stops on a uvicorn outside the tested versions (`tested_versions.py`),
since falling back to uvicorn's own protocol would silently drop the header timeout.
"""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from ..deadline import Deadline, Deadlines
from ..errors import MeshError
from ..tested_versions import is_tested, untested_message

__all__ = ["agent_http_protocol"]

_RESPONSE_HEAD = b"HTTP/1.1 "
_END_OF_HEAD = b"\r\n\r\n"


class _OneWriteTransport:
    """A transport that joins a response head with the write that follows it."""

    __slots__ = ("_held", "_loop", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: bytes | None = None

    def write(self, data: bytes) -> None:
        held = self._held
        if held is not None:
            self._held = None
            self._transport.write(held + data)
        elif data.startswith(_RESPONSE_HEAD) and data.endswith(_END_OF_HEAD):
            self._held = data
            self._loop.call_soon(self.flush)
        else:
            self._transport.write(data)

    def flush(self) -> None:
        held = self._held
        if held is not None:
            self._held = None
            self._transport.write(held)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class _AgentHttpProtocol(HttpToolsProtocol):
    header_timeout = 30.0
    _header_deadline: Deadline | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.transport = _OneWriteTransport(transport, self.loop)  # type: ignore[assignment]
        self._deadlines = Deadlines.of_loop(self.loop)
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._header_deadline = self._deadlines.arm(self.header_timeout, self._headers_too_slow)

    def _disarm(self) -> None:
        if self._header_deadline is not None:
            self._deadlines.clear(self._header_deadline)
            self._header_deadline = None

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


def agent_http_protocol(header_timeout: float) -> type[HttpToolsProtocol]:
    """uvicorn's HTTP protocol class bounding the time to receive a request's headers to `header_timeout`
    seconds, and writing each response in one piece. Raises MeshError on an untested uvicorn."""
    if not is_tested("uvicorn", uvicorn.__version__):
        use = "extends uvicorn's HttpToolsProtocol (server.header_timeout, one write per response)"
        raise MeshError(untested_message("uvicorn", uvicorn.__version__, use))
    return type("AgentHttpProtocol", (_AgentHttpProtocol,), {"header_timeout": header_timeout})
