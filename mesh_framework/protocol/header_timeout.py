"""A bound on the time a client may take to send a request's headers (`server.header_timeout`).

uvicorn bounds idle keep-alive connections but not a request whose headers trickle in: a slow-loris
client could hold a connection for ever. This is uvicorn's httptools protocol with one timer more: armed
when a connection opens and when a request begins, cleared once the headers are complete; when it fires
the client gets `408 Request Timeout` and the connection is closed.
"""

from __future__ import annotations

import asyncio

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

__all__ = ["header_timeout_protocol"]


class _HeaderTimeoutProtocol(HttpToolsProtocol):
    header_timeout = 30.0
    _header_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
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
        self._header_timer = self.loop.call_later(self.header_timeout, self._headers_too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self.transport.is_closing():
            return
        message = f"Request headers not received within {self.header_timeout:g} s (server.header_timeout)"
        body = message.encode()
        self.transport.write(
            b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body
        )
        self.transport.close()


def header_timeout_protocol(seconds: float) -> type[HttpToolsProtocol]:
    """uvicorn's HTTP protocol class with a `seconds` bound on receiving a request's headers."""
    return type("HeaderTimeoutProtocol", (_HeaderTimeoutProtocol,), {"header_timeout": seconds})
