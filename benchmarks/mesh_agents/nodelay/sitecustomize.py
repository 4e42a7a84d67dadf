"""Put this folder on PYTHONPATH of an mcp-mesh agent to give its listening sockets TCP_NODELAY.

Nothing else changes: `socket.socket.listen` is wrapped so that every TCP listening socket gets
TCP_NODELAY before it listens; Linux hands the option down to the sockets it accepts. asyncio sets
TCP_NODELAY itself only on sockets created with proto IPPROTO_TCP, and uvicorn creates its socket with
proto 0, so as shipped every answer written in two parts waits for the client's delayed ACK (~40 ms).
Used by benchmarks/mesh_bench.py for the "MCP Mesh + NODELAY" rows; mcp-mesh itself is not modified.
"""

import contextlib as _contextlib
import socket as _socket

_listen = _socket.socket.listen


def _listen_nodelay(self, *args):  # type: ignore[no-untyped-def]
    if self.family in (_socket.AF_INET, _socket.AF_INET6) and self.type == _socket.SOCK_STREAM:
        with _contextlib.suppress(OSError):
            self.setsockopt(_socket.IPPROTO_TCP, _socket.TCP_NODELAY, 1)
    return _listen(self, *args)


_socket.socket.listen = _listen_nodelay  # type: ignore[method-assign]
