"""Serving an agent on a socket: bound first (a failure names the origin of `server.port`), then uvicorn
until SIGINT or SIGTERM asks it to stop."""

from __future__ import annotations

import asyncio
import signal
import socket
from collections.abc import Callable
from typing import Any

import uvicorn

from ..config.loader import LoadedSettings
from ..config.settings import MeshSettings
from ..errors import ConfigError
from ..protocol.http_protocol import agent_http_protocol
from ..serving import UvicornServer, bind_socket

__all__ = ["bind_agent_socket", "serve_until_stopped", "uvicorn_server"]


def bind_agent_socket(loaded: LoadedSettings) -> socket.socket:
    """The listening socket on `server.host`:`server.port` (port 0 picks a free one)."""
    server = loaded.settings.server
    assert server.host is not None
    try:
        return bind_socket(server.host, server.port)
    except OSError as exc:
        origin = loaded.origin_of("server.port")
        raise ConfigError(
            [
                f"server.port = {server.port} (from {origin}): cannot listen on "
                f"{server.host}:{server.port} ({exc.strerror}); choose another port"
            ]
        ) from None


def uvicorn_server(asgi: Any, settings: MeshSettings) -> UvicornServer:
    """uvicorn for the agent's ASGI app, with its lifespan, without its own logging setup; HTTPS when
    `tls.cert_file`/`tls.key_file` are set (security/tls.py)."""
    from ..security.tls import server_tls

    try:
        tls = server_tls(settings.tls)
    except ValueError as exc:
        raise ConfigError([str(exc)]) from None
    config = uvicorn.Config(
        asgi,
        log_config=None,
        access_log=False,
        lifespan="on",
        log_level=settings.logging.level.lower(),
        timeout_graceful_shutdown=int(settings.server.shutdown_grace) + 2,  # never cuts the stop short
        timeout_keep_alive=settings.server.keep_alive_timeout,
        # server.max_concurrency bounds requests, at the edge and the MCP path (protocol/asgi.py): uvicorn's
        # limit_concurrency would count idle connections too, so a thousand silent sockets refused every call
        http=agent_http_protocol(
            settings.server.header_timeout,
            settings.server.body_timeout,
            first_byte_timeout=settings.server.first_byte_timeout,
            max_header_bytes=settings.server.max_header_bytes,
        ),
        **(tls.uvicorn_options() if tls else {}),
    )
    return UvicornServer(config)


async def serve_until_stopped(server: UvicornServer, sock: socket.socket, stop: Callable[[], None]) -> None:
    """Serve on `sock`; SIGINT and SIGTERM call `stop` while it serves."""
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop)
    try:
        await server.serve(sockets=[sock])
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
