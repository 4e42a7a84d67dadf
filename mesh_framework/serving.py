"""What every server of the framework (agents, the embedded registry) does the same way: bind, then serve."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Iterator

import uvicorn

__all__ = ["KEEP_ALIVE_TIMEOUT", "UvicornServer", "bind_socket"]

KEEP_ALIVE_TIMEOUT = 65
"""Seconds our servers keep an idle connection (uvicorn's 5 s equals the heartbeat interval and clients'
pool expiry, so a request and the server's close could cross; ours outlast the clients' pools)."""


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (port 0 picks a free one). Raises OSError when it cannot bind."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP and TCP_NODELAY matter: asyncio sets TCP_NODELAY on accepted sockets only when the
    # proto says TCP (they inherit the option on Linux), and without it an answer written in two parts
    # waits ~40 ms for the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


class UvicornServer(uvicorn.Server):
    """uvicorn without its signal handling: the host process owns SIGINT/SIGTERM (uvicorn would re-raise
    them after shutting down, ending the process with the signal's status instead of 0). `listening` is set
    once it serves on its sockets."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.listening = asyncio.Event()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            self.listening.set()
