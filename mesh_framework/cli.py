"""The `mesh` command: `mesh run [APP]` and `mesh config [APP]`."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["main"]


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "app",
        nargs="?",
        default=os.environ.get("MESH_APP"),
        help="module holding the @mesh_agent class, e.g. starter_app (default: $MESH_APP)",
    )
    parser.add_argument(
        "--profile",
        action="append",
        default=None,
        metavar="NAME",
        help="activate a profile (repeat, or comma-separate); overrides MESH_PROFILES_ACTIVE",
    )
    parser.add_argument("--config", metavar="PATH", help="folder (or file) holding application.yaml")
    parser.add_argument("--port", type=int, help="port to listen on (0 picks a free one)")
    parser.add_argument("--host", help="address to bind")
    parser.add_argument("--name", help="agent name")
    parser.add_argument("--registry-url", help="MCP Mesh registry URL")
    parser.add_argument("--log-level", help="DEBUG, INFO, WARNING or ERROR")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mesh", description="Run and inspect mesh_framework agents.")
    commands = parser.add_subparsers(dest="command", required=True)
    _common(commands.add_parser("run", help="start an agent"))
    _common(commands.add_parser("config", help="print every resolved setting with its origin"))
    return parser


def _cli_settings(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "server.port": args.port,
        "server.host": args.host,
        "agent.name": args.name,
        "registry.url": args.registry_url,
        "logging.level": args.log_level,
    }


def _profiles(args: argparse.Namespace) -> list[str] | None:
    if not args.profile:
        return None
    return [p.strip() for value in args.profile for p in value.split(",") if p.strip()]


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if not args.app:
        print(
            "mesh: name the application module, e.g. `mesh run starter_app` (or set MESH_APP)",
            file=sys.stderr,
        )
        return 2
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())

    from .app import MeshApplication
    from .errors import MeshError
    from .logs import configure_logging

    configure_logging(args.log_level.upper() if args.log_level else "INFO")
    try:
        app = MeshApplication.load(
            args.app, cli=_cli_settings(args), profiles=_profiles(args), config=args.config
        )
        if args.command == "config":
            _print_config(app)
            return 0
        configure_logging(app.settings.logging.level)
        app.run()
    except MeshError as exc:
        print(f"mesh: cannot {args.command} '{args.app}'. {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    return 0


def _print_config(app: Any) -> None:
    from .config.loader import section_rows

    rows = [
        row
        for row in app.loaded.table()
        if not any(row[0].startswith(s.prefix + ".") for s in app.scan.config_properties)
    ]
    for spec in app.scan.config_properties:
        rows.extend(section_rows(app.loaded, spec.prefix, app.section(spec.model)))
    width = max(len(key) for key, _v, _o in rows)
    value_width = min(max(len(value) for _k, value, _o in rows), 40)
    for key, value, origin in rows:
        print(f"{key:<{width}}  {value:<{value_width}}  {origin}")


if __name__ == "__main__":
    sys.exit(main())
