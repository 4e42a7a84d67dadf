"""`serve_gateway`: the gateway on a socket of its own until Ctrl-C or SIGTERM (`mesh gateway`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .gateway import MeshGateway

__all__ = ["serve_gateway"]


def serve_gateway(gateway: MeshGateway, host: str, port: int) -> None:
    """Bind `host:port` (OSError when it cannot), then serve; logs `gateway serving http://HOST:PORT/mcp`
    once the registry's first listing is in."""
    import uvicorn

    from ..protocol.http_protocol import agent_http_protocol
    from ..serving import bind_socket

    sock = bind_socket(host, port)
    shown = f"[{host}]" if ":" in host else host
    gateway.url = f"http://{shown}:{sock.getsockname()[1]}{gateway.settings.server.path}"
    server = gateway.settings.server
    config = uvicorn.Config(
        gateway.app,
        log_level="warning",
        lifespan="on",
        http=agent_http_protocol(server.header_timeout),
        timeout_graceful_shutdown=int(server.shutdown_grace),
    )
    uvicorn.Server(config).run(sockets=[sock])
