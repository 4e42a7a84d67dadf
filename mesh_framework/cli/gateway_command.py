"""`mesh gateway`: every healthy tool of the mesh at one MCP endpoint, for any MCP client.

    mesh gateway [--registry-url URL] [--host 127.0.0.1] [--port 8090] [--discovery all|search]
                 [--tags T ...] [--exclude-tags T ...] [--namespace NS ...] [--agent NAME ...]

It logs `gateway serving http://HOST:PORT/mcp with N tool(s) of M agent(s)` and runs until Ctrl-C. Like
`mesh registry`, it binds loopback unless callers must authenticate: beyond loopback it needs
`auth.tokens` or `auth.jwks_url` (the caller's token is then checked, and passed on to the agents).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import Any

from .common import EXIT_OK, EXIT_USAGE, CliError, registry_option, registry_url

__all__ = ["DEFAULT_PORT", "register"]

DEFAULT_PORT = 8090


def _names(values: Sequence[str] | None) -> frozenset[str]:
    """Repeated and/or comma-separated values (`--tags a,b --tags c`)."""
    return frozenset(p.strip() for value in values or () for p in value.split(",") if p.strip())


def register(commands: Any) -> None:
    gateway = commands.add_parser("gateway", help="serve every tool of the mesh at one MCP endpoint")
    registry_option(gateway)
    gateway.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    gateway.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port to bind, 0 for any (default: {DEFAULT_PORT})"
    )
    gateway.add_argument(
        "--discovery",
        choices=("all", "search"),
        default="all",
        help="all: every tool listed; search: search_tools, describe_tool and call_tool (default: all)",
    )
    for option, meaning in (
        ("--tags", "serve only tools carrying every one of these tags"),
        ("--exclude-tags", "leave out tools carrying any of these tags"),
        ("--namespace", "serve only agents of these namespaces"),
        ("--agent", "serve only these agents (name or id)"),
    ):
        gateway.add_argument(option, action="append", metavar="NAME", help=meaning + " (repeat, or commas)")
    gateway.set_defaults(handler=_gateway)


def _gateway(args: argparse.Namespace) -> int:
    from ..config.loader import load_settings
    from ..config.network import is_loopback
    from ..mesh_gateway import GatewayFilter, MeshGateway, serve_gateway

    if not 0 <= args.port <= 65535:
        raise CliError(f"--port must be between 0 and 65535, not {args.port}", EXIT_USAGE)
    url = registry_url(args.registry_url)
    cli = {"server.host": args.host, "server.port": args.port, "agent.name": "mesh-gateway"}
    settings = load_settings(cli=cli).settings
    if not is_loopback(args.host) and not settings.auth.enabled:
        raise CliError(
            f"the gateway will not listen on {args.host} without authentication: its callers reach every "
            "tool of the mesh; set auth.tokens (MESH_AUTH__TOKENS) or auth.jwks_url so that they must "
            "present a token, or bind 127.0.0.1",
            EXIT_USAGE,
        )
    only = GatewayFilter(
        tags=_names(args.tags),
        exclude_tags=_names(args.exclude_tags),
        namespaces=_names(args.namespace),
        agents=_names(args.agent),
    )
    gateway = MeshGateway(settings, registry_url=url, only=only, discovery=args.discovery)
    try:
        serve_gateway(gateway, args.host, args.port)
    except OSError as exc:
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise CliError(
            f"cannot listen on {args.host}:{args.port} ({reason}); choose another --port (0 picks a free one)"
        ) from None
    return EXIT_OK
