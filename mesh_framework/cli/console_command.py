"""`mesh console`: the mesh page with its console, served by this process over any registry.

    mesh console [--registry-url URL] [--host 127.0.0.1] [--port 0]

It logs `console serving http://HOST:PORT/ui` and runs until Ctrl-C. Against our registry the page shows
everything; against MCP Mesh's, what that registry serves (agents, graph, events; no traffic or traces).
The registry token (`registry.token`) is sent to the registry when set.
"""

from __future__ import annotations

import argparse
import os
from types import FrameType
from typing import Any

from .common import EXIT_OK, EXIT_USAGE, CliError, client_settings, registry_option, registry_url

__all__ = ["register"]


def register(commands: Any) -> None:
    console = commands.add_parser("console", help="serve the mesh page and its console for a registry")
    registry_option(console)
    console.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    console.add_argument("--port", type=int, default=0, help="port to bind (default: any free port)")
    console.set_defaults(handler=_console)


def _console(args: argparse.Namespace) -> int:
    import uvicorn

    from ..config.network import is_loopback
    from ..registry.ui.remote import remote_console_app
    from ..serving import bind_socket

    if not is_loopback(args.host):
        raise CliError(
            f"the page calls tools for whoever opens it; bind it to loopback, not {args.host}",
            EXIT_USAGE,
        )
    url = registry_url(args.registry_url)
    settings = client_settings()
    token = settings.registry.token if settings is not None else None
    app = remote_console_app(url, token=token.get_secret_value() if token else None, host=args.host)
    try:
        sock = bind_socket(args.host, args.port)
    except OSError as exc:
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise CliError(
            f"cannot listen on {args.host}:{args.port} ({reason}); choose another --port"
        ) from None
    port = sock.getsockname()[1]
    import logging  # here, not at the top: `mesh --help` loads the parser only

    logging.getLogger("mesh_framework.cli").info(
        "console serving http://%s:%d/ui for the registry at %s", args.host, port, url
    )
    from ..protocol.http_protocol import agent_http_protocol

    class ConsoleServer(uvicorn.Server):
        """Ctrl-C ends the open pages' change streams too: uvicorn's graceful stop waits for open
        responses, and a page's stream lasts as long as its browser tab."""

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            app.state.end_streams()
            super().handle_exit(sig, frame)

    config = uvicorn.Config(app, log_level="warning", lifespan="on", http=agent_http_protocol(30.0))
    ConsoleServer(config).run(sockets=[sock])
    return EXIT_OK
