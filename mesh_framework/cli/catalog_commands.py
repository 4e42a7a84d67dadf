"""`mesh catalog list|show|export|login|logout`: the MCP servers of an app's catalog (or of catalog files);
`login` signs the user in to one behind OAuth (in the browser, catalog/oauth_login.py), `logout` forgets it.

Problems go to stderr, one line each (`mesh catalog ACTION: ...`), and exit 1 (2 for bad usage); secrets
are masked except by `export`, whose output is meant for a client.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shlex
import sys
from typing import TYPE_CHECKING, Any

from ..errors import MeshError
from .common import EXIT_ERROR, EXIT_OK, EXIT_USAGE, CliError, json_option, profiles
from .output import echo, emit_json, is_terminal, plain_table, rich_table

if TYPE_CHECKING:
    from ..config.settings import McpSettings

__all__ = ["register"]


def register(commands: Any) -> None:
    catalog = commands.add_parser("catalog", help="list, show or export the MCP servers of the catalog")
    actions = catalog.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser("list", help="every server: name, type, command or URL, origin")
    show = actions.add_parser("show", help="one server, secrets masked (env values, credential headers)")
    show.add_argument("server", help="server name")
    export = actions.add_parser(
        "export",
        help="the servers in a client's or vendor's format (secrets NOT masked: feed it to the client)",
    )
    export.add_argument(
        "--format", required=True, metavar="FORMAT", help="claude, vscode, gemini, anthropic or openai"
    )
    export.add_argument(
        "--skip-local",
        action="store_true",
        help="leave stdio servers out of the API formats (anthropic, openai)",
    )
    export.add_argument(
        "--server",
        action="append",
        metavar="NAME",
        help="export only these servers (repeat, or comma-separate)",
    )
    login = actions.add_parser(
        "login",
        help="sign in to a catalog server behind OAuth in your browser; the tokens are kept for your user "
        "(~/.local/state/mesh/tokens) and sent by your agents and commands",
    )
    login.add_argument("server", help="server name")
    login.add_argument(
        "--client-id-url",
        metavar="URL",
        help="https URL of your client ID metadata document (default: mcp.oauth_client_id_url)",
    )
    login.add_argument(
        "--client-id",
        metavar="ID",
        help="a client registered at an authorization server without CIMD (default: mcp.oauth_client_id)",
    )
    login.add_argument(
        "--scope", action="append", metavar="SCOPE", help="scope to ask for (repeat; default: the server's)"
    )
    login.add_argument("--no-browser", action="store_true", help="only print the sign-in URL")
    login.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="how long to wait for the sign-in (300)",
    )
    logout = actions.add_parser("logout", help="forget your sign-in to a catalog server")
    logout.add_argument("server", help="server name")
    for parser in (listing, show, export, login, logout):
        parser.add_argument(
            "app", nargs="?", help="module holding a @mesh_agent class, e.g. starter_app (default: $MESH_APP)"
        )
        parser.add_argument(
            "--file",
            action="append",
            metavar="PATH",
            help="a catalog file or folder instead of an app (repeat)",
        )
        parser.add_argument(
            "--profile", action="append", default=None, metavar="NAME", help="activate a profile"
        )
        parser.add_argument("--config", metavar="PATH", help="folder (or file) holding application.yaml")
        parser.set_defaults(handler=_catalog)
    json_option(listing)
    show.add_argument("--json", action="store_true", help="JSON on stdout (as without it)")


def _catalog(args: argparse.Namespace) -> int:
    try:
        return _action(args)
    except MeshError as exc:
        for problem in getattr(exc, "problems", None) or [str(exc)]:
            sys.stderr.write(f"mesh catalog {args.action}: {problem}\n")
        return getattr(exc, "exit_code", EXIT_ERROR)


def _action(args: argparse.Namespace) -> int:
    from ..catalog import masked, translate
    from ..catalog.translators import FORMATS

    if args.file and args.app:
        raise CliError("give an application module or --file, not both", EXIT_USAGE)
    if args.action == "export" and args.format not in FORMATS:
        # a near typo only ('claud'): a looser match ('nope' -> 'openai') misleads more than it helps
        close = difflib.get_close_matches(args.format, FORMATS, n=1, cutoff=0.8)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise CliError(
            f"unknown --format {args.format!r}; {hint}the formats: {', '.join(FORMATS)}", EXIT_USAGE
        )
    catalog, mcp = _load(args)
    if catalog is None:
        raise CliError(
            f"name the application module, e.g. `mesh catalog {args.action} starter_app` (or MESH_APP), "
            "or give --file PATH",
            EXIT_USAGE,
        )
    if args.action == "list":
        return _list(catalog, json_output=args.json)
    if args.action in ("login", "logout"):
        return _login(args, catalog.resolve([args.server])[args.server], mcp)
    if args.action == "show":
        definition = catalog.resolve([args.server])[args.server]
        emit_json({"name": args.server, "origin": catalog.origin_of(args.server), **masked(definition)})
        return EXIT_OK
    names = [n.strip() for value in args.server or [] for n in value.split(",") if n.strip()]
    servers = catalog.resolve(names) if names else catalog.get_all()
    echo(json.dumps(translate(args.format, servers, skip_local=args.skip_local), indent=2))
    return EXIT_OK


def _list(catalog: Any, *, json_output: bool) -> int:
    from ..catalog import masked

    servers = catalog.get_all()
    if json_output:
        emit_json(
            {
                "servers": [
                    {"name": name, "origin": catalog.origin_of(name) or "code", **masked(definition)}
                    for name, definition in servers.items()
                ]
            }
        )
        return EXIT_OK
    if not servers:
        echo("no MCP servers in the catalog; add them to mcp.servers or a catalog file (mcp.catalog)")
        return EXIT_OK
    rows = [
        [name, d.type, _target(d.to_dict()), catalog.origin_of(name) or "code"] for name, d in servers.items()
    ]
    if is_terminal():
        rich_table(
            ["NAME", "TYPE", "COMMAND OR URL", "ORIGIN"],
            rows,
            styles=["bold", None, "cyan", "dim"],
            wrap=[False, False, True, True],
        )
    else:
        plain_table(rows, caps=[60, 60, 60])
    return EXIT_OK


def _login(args: argparse.Namespace, definition: Any, mcp: McpSettings | None) -> int:
    import asyncio

    import httpx2

    from ..catalog.oauth_login import sign_in
    from ..catalog.user_tokens import UserTokenStore
    from ..config.settings import McpLoginSettings

    name = args.server
    url = getattr(definition, "url", None)
    if url is None:
        raise CliError(f"'{name}' is a local process (stdio): sign-in is for servers reached over HTTP")
    store = UserTokenStore()
    if args.action == "logout":
        removed = store.remove(url)
        echo(
            f"signed out of '{name}' ({url}): {len(removed)} sign-in(s) forgotten"
            if removed
            else f"not signed in to '{name}' ({url}); nothing to forget"
        )
        return EXIT_OK
    client = mcp.login_client(name) if mcp is not None else McpLoginSettings()
    scopes = [s for value in args.scope or [] for s in value.replace(",", " ").split()]
    try:
        client = McpLoginSettings(
            client_id_url=args.client_id_url or client.client_id_url,
            client_id=args.client_id or client.client_id,
            scopes=scopes or client.scopes,
        )
    except ValueError as exc:  # pydantic's ValidationError: the one problem, without its frame
        problem = exc.errors()[0]["msg"] if hasattr(exc, "errors") else str(exc)
        raise CliError(f"--client-id-url: {problem.removeprefix('Value error, ')}", EXIT_USAGE) from None
    if args.timeout <= 0:
        raise CliError("--timeout must be a positive number of seconds", EXIT_USAGE)

    async def run() -> tuple[Any, str]:
        async with httpx2.AsyncClient(timeout=30) as http:
            return await sign_in(
                name,
                url,
                client,
                http=http,
                store=store,
                show=echo,
                open_browser=None if args.no_browser else _open_browser,
                timeout=args.timeout,
            )

    try:
        login, path = asyncio.run(run())
    except KeyboardInterrupt:
        raise CliError("cancelled; nothing stored") from None
    scope = f" with scope {login.scope!r}" if login.scope else ""
    echo(f"signed in to '{name}' ({url}) at {login.issuer}{scope}; the tokens are in {path}")
    return EXIT_OK


def _open_browser(url: str) -> None:
    import contextlib
    import webbrowser

    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        return  # no desktop: webbrowser would start a text browser in this terminal; the URL is printed
    with contextlib.suppress(webbrowser.Error):  # no browser here: the URL printed is the way
        webbrowser.open(url)


def _load(args: argparse.Namespace) -> tuple[Any, McpSettings | None]:
    """The catalog (None: neither an app nor files named) and, with an app, its `mcp` settings."""
    from ..app import MeshApplication
    from ..catalog.server_catalog import load_catalog_with_origins

    if args.file:
        return load_catalog_with_origins(args.file), None
    app_name = args.app or os.environ.get("MESH_APP")
    if not app_name:
        return None, None
    app = MeshApplication.load(app_name, profiles=profiles(args), config=args.config)
    if "mcp_catalog" not in app.container.providers:  # the app names no MCP server
        from ..catalog.server_catalog import McpServerCatalog

        return McpServerCatalog(), app.settings.mcp
    return app.container.mcp_catalog(), app.settings.mcp


def _target(data: dict[str, Any]) -> str:
    if "url" in data:
        return str(data["url"])
    return shlex.join([data["command"], *data.get("args", [])])
