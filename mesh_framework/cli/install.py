"""`mesh install CLIENT` and `mesh stdio`: the mesh, an agent or an app in an MCP client's own file.

    mesh install CLIENT --name NAME --url URL [--scope user|project] [--dry-run]
    mesh install CLIENT APP [--name NAME] [--scope user|project] [--dry-run]
    mesh stdio (APP [--directory PATH] [--profile NAME] [--config PATH] | --url URL)

CLIENT is claude-code, claude-desktop, cursor, vscode, gemini-cli or mcp-json (the entry printed, no
file changed). The entry is merged into the client's file (every other key kept; a backup first; a second
run changes nothing); `--dry-run` prints the diff instead. An app becomes a command the client starts:
this environment's `mesh stdio APP`, which runs `mesh run APP` and bridges the client's stdin/stdout to it.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any

from .common import EXIT_ERROR, EXIT_OK, EXIT_USAGE, CliError, Unreachable
from .output import echo

__all__ = ["register"]

CLIENT_NAMES = ("claude-code", "claude-desktop", "cursor", "vscode", "gemini-cli", "mcp-json")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_URL = re.compile(r"^https?://[^/\s]+(/\S*)?$")


def register(commands: Any) -> None:
    install = commands.add_parser(
        "install",
        help="add the mesh, an agent or an app to an MCP client (Claude, Cursor, VS Code, Gemini CLI)",
        description="Add an MCP server entry to a client's own configuration file: an agent's or the mesh "
        "gateway's URL (--url), or an app the client starts (APP).",
    )
    install.add_argument("client", choices=CLIENT_NAMES, metavar="CLIENT", help=", ".join(CLIENT_NAMES))
    install.add_argument(
        "app", nargs="?", help="module holding a @mesh_agent class, e.g. starter_app (the client starts it)"
    )
    install.add_argument("--url", help="an MCP endpoint: an agent's /mcp or the mesh gateway's")
    install.add_argument("--name", help="the server's name in the client (default: the app's module)")
    install.add_argument(
        "--scope",
        choices=("user", "project"),
        default="user",
        help="the user's file (default) or the project's, in the current folder (e.g. .mcp.json)",
    )
    install.add_argument("--dry-run", action="store_true", help="print the change as a diff; write nothing")
    install.set_defaults(handler=_install)

    stdio = commands.add_parser(
        "stdio",
        help="serve MCP on stdin/stdout for a client: an app run with `mesh run`, or a URL bridged",
        description="An MCP server on stdin/stdout, for clients that start commands (what `mesh install` "
        "writes for an app, and for a URL in Claude Desktop). Log lines go to stderr.",
    )
    stdio.add_argument("app", nargs="?", help="module holding a @mesh_agent class, run with `mesh run`")
    stdio.add_argument("--url", help="bridge to this MCP endpoint instead of running an app")
    stdio.add_argument("--directory", metavar="PATH", help="the project folder the app is imported from")
    stdio.add_argument("--profile", action="append", default=None, metavar="NAME", help="activate a profile")
    stdio.add_argument("--config", metavar="PATH", help="folder (or file) holding application.yaml")
    stdio.set_defaults(handler=_stdio)


def _install(args: argparse.Namespace) -> int:
    from ..install import ConfigFileError, mesh_executable, plan_install, target_for
    from ..install.clients import CLIENTS

    url, app = _one_target(args, "install")
    name = args.name or (app.replace(".", "-") if app else None)
    if name is None:
        raise CliError("name the server the client will show: --name NAME (e.g. --name mesh)", EXIT_USAGE)
    if not _NAME.match(name):
        raise CliError(
            f"--name {name!r}: use letters, digits, '-', '_' and '.', starting with a letter or digit",
            EXIT_USAGE,
        )
    if args.client == "claude-desktop" and args.scope == "project":
        raise CliError("Claude Desktop has no project file; leave out --scope project", EXIT_USAGE)
    directory = Path.cwd()
    if app is not None:
        _check_app(app, directory)
    target = target_for(args.client, url=url, app=app, mesh=mesh_executable(), directory=directory)
    try:
        plan = plan_install(
            args.client, name, target, home=Path.home(), platform=sys.platform, scope=args.scope
        )
    except ConfigFileError as exc:
        raise CliError(f"{exc}", EXIT_ERROR) from None
    if plan.change is None:  # mcp-json: the entry, for any client's file
        import json

        echo(json.dumps(plan.printed(), indent=2))
        return EXIT_OK
    change = plan.change
    title = CLIENTS[args.client].title
    if not change.changed:
        echo(f"'{name}' is already in {change.path} as given; nothing changed")
        return EXIT_OK
    if args.dry_run:
        sys.stdout.write(change.diff())
        echo(f"dry run: {change.path} not changed")
        return EXIT_OK
    try:
        backup = change.write()
    except ConfigFileError as exc:
        raise CliError(str(exc)) from None
    said = f"replaced '{name}' in" if change.replaced is not None else f"added '{name}' to"
    echo(f"{said} {change.path}" + (f" (backup: {backup})" if backup else ""))
    echo(f"restart {title} (or reload its MCP servers) to use it")
    return EXIT_OK


def _one_target(args: argparse.Namespace, command: str) -> tuple[str | None, str | None]:
    """`--url URL` or APP, exactly one; a URL must be http(s)."""
    if args.url and args.app:
        raise CliError(f"give an app or --url, not both (mesh {command} ... APP | --url URL)", EXIT_USAGE)
    if not args.url and not args.app:
        example = "mesh install cursor starter_app" if command == "install" else "mesh stdio starter_app"
        raise CliError(
            f"give an app module (`{example}`) or --url URL (an agent's or the gateway's /mcp)", EXIT_USAGE
        )
    if args.url and not _URL.match(args.url):
        raise CliError(
            f"--url {args.url!r} is not an http:// or https:// URL; e.g. --url http://127.0.0.1:9090/mcp",
            EXIT_USAGE,
        )
    return args.url, args.app


def _check_app(app: str, directory: Path) -> None:
    """The app's module must be found from `directory` (where the client will start it), without
    importing it."""
    from importlib.machinery import PathFinder

    locations: list[str] | None = [str(directory), *sys.path]
    for part in range(len(app.split("."))):
        spec = PathFinder.find_spec(".".join(app.split(".")[: part + 1]), locations)
        if spec is None:
            raise CliError(
                f"no module named '{app}' from {directory}; run mesh install from the project folder",
                EXIT_USAGE,
            )
        locations = list(spec.submodule_search_locations or [])


def _stdio(args: argparse.Namespace) -> int:
    import asyncio

    from ..install.stdio import AppDidNotStart, EndpointUnreachable, bridge, run_command, serve_app

    url, app = _one_target(args, "stdio")
    if url is not None:
        try:
            asyncio.run(bridge(url))
        except EndpointUnreachable as exc:
            raise Unreachable(f"{exc}; start it first (`mesh run APP`, `mesh gateway`)") from None
        return EXIT_OK
    assert app is not None
    directory = Path(args.directory or os.getcwd()).resolve()
    if not directory.is_dir():
        raise CliError(f"--directory {directory} is not a folder", EXIT_USAGE)
    argv = run_command(app, profiles=args.profile or (), config=args.config)
    try:
        return asyncio.run(serve_app(argv, directory, app))
    except AppDidNotStart as exc:
        raise CliError(str(exc)) from None
