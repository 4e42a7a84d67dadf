"""The process's pooled HTTP client: idle connections dropped before their peers drop them, and one
retry of an idempotent request that met a connection the peer had just closed.

A server closes an idle keep-alive connection after its own timeout (uvicorn's and Node's default: 5 s).
A client that reuses that connection at the same moment writes its request into a socket the server is
closing and gets `RemoteProtocolError: Server disconnected without sending a response` (or `ReadError`):
the request was never processed. Two remedies, both here: the pool forgets idle connections sooner than
the peers' keep-alive (`mesh.keepalive_expiry`), and an idempotent request (GET, HEAD, PUT, DELETE,
OPTIONS, or one sent with `extensions=IDEMPOTENT`) that fails that way is sent once more on a fresh
connection. A request that may have had effects (a plain POST) is never repeated.
"""

from __future__ import annotations

import logging
import socket
import ssl
from collections.abc import Callable
from typing import Any

import httpx2

__all__ = ["IDEMPOTENT", "StaleConnectionRetry", "TlsOnDemand", "asyncio_transport", "build_http_client"]

logger = logging.getLogger("mesh_framework.mesh")

IDEMPOTENT = {"mesh_idempotent": True}
"""Request extensions marking a POST safe to repeat (the registry heartbeat, an idempotent tool)."""

IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})
# What a request written into a connection the peer just closed raises; nothing of an answer was read.
STALE_CONNECTION_ERRORS = (httpx2.RemoteProtocolError, httpx2.ReadError, httpx2.WriteError)


class StaleConnectionRetry(httpx2.AsyncBaseTransport):
    """Wraps a transport: an idempotent request failing on a stale connection is retried once."""

    def __init__(self, inner: httpx2.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        try:
            return await self.inner.handle_async_request(request)
        except STALE_CONNECTION_ERRORS as exc:
            if request.method not in IDEMPOTENT_METHODS and not request.extensions.get("mesh_idempotent"):
                raise
            logger.debug("%s %s met a closed connection (%r); retrying", request.method, request.url, exc)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


class TlsOnDemand(httpx2.AsyncBaseTransport):
    """http requests on one transport, https ones on another built at the first https request (with the TLS
    context `make_tls` gives it): a client that only ever speaks http never loads certificates."""

    def __init__(
        self, plain: httpx2.AsyncBaseTransport, make_tls: Callable[[], httpx2.AsyncBaseTransport]
    ) -> None:
        self.plain = plain
        self.make_tls = make_tls
        self.tls: httpx2.AsyncBaseTransport | None = None

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.url.scheme != "https":
            return await self.plain.handle_async_request(request)
        if self.tls is None:
            self.tls = self.make_tls()
        return await self.tls.handle_async_request(request)

    async def aclose(self) -> None:
        await self.plain.aclose()
        if self.tls is not None:
            await self.tls.aclose()


def build_http_client(
    *,
    keepalive_expiry: float = 4.0,
    verify: ssl.SSLContext | bool | Callable[[], ssl.SSLContext | bool] = True,
) -> httpx2.AsyncClient:
    """The pooled client (TCP_NODELAY, keep-alive `keepalive_expiry` seconds, the stale-connection retry,
    asyncio's network layer: `asyncio_network.py`); `verify` checks the servers' certificates, or is the
    function giving what does, called at the first https request (`TlsOnDemand`)."""
    nodelay = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
    limits = httpx2.Limits(
        max_connections=256, max_keepalive_connections=64, keepalive_expiry=keepalive_expiry
    )

    def transport(tls: ssl.SSLContext | bool) -> httpx2.AsyncBaseTransport:
        return asyncio_transport(socket_options=nodelay, limits=limits, verify=tls)

    inner: httpx2.AsyncBaseTransport
    if callable(verify):
        make_tls = verify
        inner = TlsOnDemand(transport(False), lambda: transport(make_tls()))
    else:
        inner = transport(verify)
    return httpx2.AsyncClient(transport=StaleConnectionRetry(inner), trust_env=False)


def asyncio_transport(**options: Any) -> httpx2.AsyncHTTPTransport:
    """httpx2's transport, `options` as its own, on asyncio's network layer (`asyncio_network.py`)."""
    from .asyncio_network import on_asyncio_network  # imports httpcore2 (~20 ms), as httpx2 does: late

    return on_asyncio_network(httpx2.AsyncHTTPTransport(**options))
