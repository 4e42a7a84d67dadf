"""The `mesh` command: run agents, run a registry, inspect settings, list and call tools of the mesh.

mesh run APP [APP ...]     one agent, or several (with an embedded registry) in local processes
mesh config APP            every resolved setting with its origin
mesh registry              the embedded registry, standalone
mesh list                  the agents a registry knows
mesh call TOOL [JSON]      call a tool of the mesh through the registry
mesh catalog list|show NAME|export --format F [APP | --file PATH]
                           the MCP servers of an app's catalog (or of catalog files), translated on export
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from .errors import MeshError

__all__ = ["main"]


# Exit codes scripts can rely on.
EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_UNREACHABLE = 0, 1, 2, 3


class CliError(MeshError):
    """A problem the command reports on one line, with its exit code."""

    def __init__(self, message: str, exit_code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def _app_options(parser: argparse.ArgumentParser, *, many: bool) -> None:
    parser.add_argument(
        "apps" if many else "app",
        nargs="*" if many else "?",
        help="module(s) holding a @mesh_agent class, e.g. starter_app (default: $MESH_APP)",
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
    parser.add_argument("--registry-url", help="MCP Mesh registry URL (default: the embedded registry)")
    parser.add_argument("--log-level", help="DEBUG, INFO, WARNING or ERROR")


def _registry_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--registry-url",
        help="registry URL (default: $MCP_MESH_REGISTRY_URL, else the embedded registry's port on 127.0.0.1)",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mesh", description="Run and inspect mesh_framework agents.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="start one agent, or several with an embedded registry")
    _app_options(run, many=True)
    run.add_argument(
        "--registry-port",
        type=int,
        default=None,
        help="port of the registry started for several agents (default: registry.embedded_port, 8000)",
    )
    _app_options(
        commands.add_parser("config", help="print every resolved setting with its origin"), many=False
    )
    registry = commands.add_parser("registry", help="run the embedded registry standalone")
    registry.add_argument("--host", default="127.0.0.1")
    registry.add_argument("--port", type=int, default=None, help="default: registry.embedded_port (8000)")
    registry.add_argument("--db", default=None, metavar="FILE", help="SQLite file (default: in memory)")
    registry.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds without heartbeat before an agent is unhealthy (20)",
    )
    listing = commands.add_parser("list", help="list the agents the registry knows")
    _registry_option(listing)
    call = commands.add_parser("call", help="call a tool of the mesh")
    call.add_argument("tool", help="tool (function) name or capability")
    call.add_argument("arguments", nargs="?", default="{}", help="JSON object of arguments")
    call.add_argument("--agent", help="agent name or id, when several serve the tool")
    _registry_option(call)
    _catalog_parser(commands)
    return parser


def _catalog_parser(commands: Any) -> None:
    catalog = commands.add_parser("catalog", help="list, show or export the MCP servers of the catalog")
    actions = catalog.add_subparsers(dest="action", required=True)
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
    for parser in (listing, show, export):
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


def _registry_settings() -> Any:
    """The registry settings as the environment sets them (MCP_MESH_REGISTRY_URL, MESH_REGISTRY__...)."""
    from .config.loader import load_settings

    return load_settings().settings.registry


def _registry_url(explicit: str | None) -> str:
    from .mesh.embedded import embedded_registry_url

    registry = _registry_settings()
    return explicit or registry.url or embedded_registry_url(registry.embedded_port)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())

    from .errors import MeshError
    from .logs import configure_logging

    configure_logging(args.log_level.upper() if getattr(args, "log_level", None) else "INFO")
    try:
        if args.command == "registry":
            return _serve_registry(args)
        if args.command == "list":
            return asyncio.run(_list(_registry_url(args.registry_url)))
        if args.command == "call":
            return asyncio.run(_call(args))
        if args.command == "catalog":
            return _catalog(args)
        apps = args.apps if args.command == "run" else [args.app] if args.app else []
        apps = apps or ([os.environ["MESH_APP"]] if os.environ.get("MESH_APP") else [])
        if not apps:
            print(
                f"mesh: name the application module, e.g. `mesh {args.command} starter_app` (or MESH_APP)",
                file=sys.stderr,
            )
            return 2
        if len(apps) > 1:
            return _run_many(apps, args)
        return _run_one(apps[0], args)
    except MeshError as exc:
        subject = " ".join(getattr(args, "apps", None) or [getattr(args, "app", None) or ""]).strip()
        print(f"mesh: cannot {args.command}{' ' + subject if subject else ''}. {exc}", file=sys.stderr)
        return exc.exit_code if isinstance(exc, CliError) else EXIT_ERROR
    except KeyboardInterrupt:
        return 0


def _run_one(app_name: str, args: argparse.Namespace) -> int:
    from .app import MeshApplication
    from .logs import configure_logging

    app = MeshApplication.load(
        app_name, cli=_cli_settings(args), profiles=_profiles(args), config=args.config
    )
    if args.command == "config":
        _print_config(app)
        return 0
    configure_logging(app.settings.logging.level)
    app.run()
    return 0


def _run_many(apps: list[str], args: argparse.Namespace) -> int:
    from .launcher import run_agents

    if args.port not in (None, 0) or args.name is not None:
        print(
            "mesh: --port and --name apply to one agent; several agents use their own settings "
            "(agents.<name>.server.port), or --port 0 gives each a free port",
            file=sys.stderr,
        )
        return EXIT_USAGE
    forwarded: list[str] = ["--port", "0"] if args.port == 0 else []
    for profile in args.profile or []:
        forwarded += ["--profile", profile]
    if args.config:
        forwarded += ["--config", args.config]
    if args.log_level:
        forwarded += ["--log-level", args.log_level]
    if args.registry_url:
        forwarded += ["--registry-url", args.registry_url]
    port = args.registry_port if args.registry_port is not None else _registry_settings().embedded_port
    return asyncio.run(run_agents(apps, forwarded, registry_port=port, external_registry=args.registry_url))


def _serve_registry(args: argparse.Namespace) -> int:
    from .registry import DEFAULT_TIMEOUT, serve_registry

    port = args.port if args.port is not None else _registry_settings().embedded_port
    timeout = args.timeout if args.timeout is not None else DEFAULT_TIMEOUT
    try:
        asyncio.run(serve_registry(args.host, port, database=args.db, timeout=timeout))
    except OSError as exc:
        raise CliError(
            f"cannot listen on {args.host}:{port} ({exc.strerror or exc}); choose another --port, or use the "
            "registry already running there"
        ) from None
    return 0


async def _agents(url: str) -> list[dict[str, Any]]:
    import httpx2

    try:
        async with httpx2.AsyncClient(trust_env=False) as http:
            response = await http.get(url.rstrip("/") + "/agents", timeout=5)
        agents = response.json().get("agents") if response.status_code == 200 else None
    except (httpx2.HTTPError, ValueError) as exc:
        raise Unreachable(
            f"the registry at {url} is unreachable ({type(exc).__name__}); start one with `mesh run APP` "
            "or `mesh registry`, or pass --registry-url"
        ) from None
    if not isinstance(agents, list):
        raise Unreachable(
            f"{url} does not answer like an MCP Mesh registry (GET /agents); check --registry-url"
        )
    return [a for a in agents if isinstance(a, dict)]


class Unreachable(CliError):
    def __init__(self, message: str) -> None:
        super().__init__(message, EXIT_UNREACHABLE)


def _tool_names(agent: dict[str, Any]) -> list[str]:
    return [
        t.get("function_name") or t.get("name") or ""
        for t in agent.get("tools") or agent.get("capabilities") or []
        if isinstance(t, dict)
    ]


async def _list(url: str) -> int:
    agents = await _agents(url)
    if not agents:
        print(f"no agents registered at {url}")
        return 0
    print(f"{'NAME':<16} {'ID':<28} {'STATUS':<10} {'ENDPOINT':<28} TOOLS")
    for agent in agents:
        print(
            f"{agent.get('name', '?'):<16} {agent.get('id') or agent.get('agent_id', '?'):<28} "
            f"{agent.get('status', '?'):<10} {agent.get('endpoint', '?'):<28} {', '.join(_tool_names(agent))}"
        )
    return 0


async def _call(args: argparse.Namespace) -> int:
    import httpx2

    from .errors import ToolExecutionError
    from .mesh.proxy import unwrap_result
    from .mesh.transport import McpTransport, ProviderUnreachable, RemoteError

    try:
        arguments = json.loads(args.arguments)
    except json.JSONDecodeError as exc:
        raise CliError(f"arguments must be a JSON object, e.g. '{{\"a\": 1}}' ({exc})", EXIT_USAGE) from None
    if not isinstance(arguments, dict):
        raise CliError("arguments must be a JSON object, e.g. '{\"a\": 1}'", EXIT_USAGE)
    url = _registry_url(args.registry_url)
    agents = [a for a in await _agents(url) if a.get("status", "healthy") == "healthy"]
    if args.agent:
        agents = [a for a in agents if args.agent in (a.get("name"), a.get("id"), a.get("agent_id"))]
    serving = [a for a in agents if args.tool in _tool_names(a)]
    if not serving:
        known = sorted({name for agent in agents for name in _tool_names(agent)})
        close = difflib.get_close_matches(args.tool, known, n=3)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else " (see `mesh list`)"
        raise CliError(f"no healthy agent at {url} serves a tool named '{args.tool}'{hint}")
    endpoint = str(serving[0].get("endpoint", "")).rstrip("/") + "/mcp"
    async with httpx2.AsyncClient(trust_env=False) as http:
        transport = McpTransport(http, client_name="mesh-cli", client_version="1")
        try:
            result = await transport.request(
                endpoint, "tools/call", {"name": args.tool, "arguments": arguments}
            )
            value = unwrap_result(result, tool=args.tool, agent=str(serving[0].get("name")))
        except ProviderUnreachable as exc:
            print(f"mesh: call failed: {exc}", file=sys.stderr)
            return EXIT_UNREACHABLE
        except (RemoteError, ToolExecutionError) as exc:
            print(f"mesh: call failed: {exc}", file=sys.stderr)
            return EXIT_ERROR
    print(value if isinstance(value, str) else json.dumps(value))
    return 0


def _catalog(args: argparse.Namespace) -> int:
    """`mesh catalog ...`: problems go to stderr, one line each, and exit 1 (never a traceback)."""
    from .errors import MeshError

    try:
        return _catalog_action(args)
    except MeshError as exc:
        for problem in getattr(exc, "problems", None) or [str(exc)]:
            print(f"mesh catalog {args.action}: {problem}", file=sys.stderr)
        return 1


def _catalog_action(args: argparse.Namespace) -> int:
    from .catalog import masked, translate

    if args.file and args.app:
        print("mesh catalog: give an application module or --file, not both", file=sys.stderr)
        return 2
    catalog = _load_server_catalog(args)
    if catalog is None:
        print(
            f"mesh catalog: name the application module, e.g. `mesh catalog {args.action} starter_app` "
            "(or MESH_APP), or give --file PATH",
            file=sys.stderr,
        )
        return 2
    if args.action == "list":
        if not len(catalog):
            print("no MCP servers in the catalog; add them to mcp.servers or a catalog file (mcp.catalog)")
            return 0
        rows = [
            (name, d.type, _target(d.to_dict()), catalog.origin_of(name) or "code")
            for name, d in catalog.get_all().items()
        ]
        widths = [min(max(len(row[i]) for row in rows), 60) for i in range(3)]
        for name, kind, target, origin in rows:
            print(f"{name:<{widths[0]}}  {kind:<{widths[1]}}  {target:<{widths[2]}}  {origin}")
        return 0
    if args.action == "show":
        definition = catalog.resolve([args.server])[args.server]
        shown = {"name": args.server, "origin": catalog.origin_of(args.server), **masked(definition)}
        print(json.dumps(shown, indent=2))
        return 0
    names = [n.strip() for value in args.server or [] for n in value.split(",") if n.strip()]
    servers = catalog.resolve(names) if names else catalog.get_all()
    print(json.dumps(translate(args.format, servers, skip_local=args.skip_local), indent=2))
    return 0


def _load_server_catalog(args: argparse.Namespace) -> Any:
    from .app import MeshApplication
    from .catalog.loading import load_catalog_with_origins

    if args.file:
        return load_catalog_with_origins(args.file)
    app_name = args.app or os.environ.get("MESH_APP")
    if not app_name:
        return None
    app = MeshApplication.load(app_name, profiles=_profiles(args), config=args.config)
    return app.container.mcp_catalog()


def _target(data: dict[str, Any]) -> str:
    import shlex

    if "url" in data:
        return str(data["url"])
    return shlex.join([data["command"], *data.get("args", [])])


def _print_config(app: Any) -> None:
    from .config.loader import section_rows

    prefixes = [spec.prefix + "." for spec in app.scan.config_properties]
    rows = [row for row in app.loaded.table() if not any(row[0].startswith(p) for p in prefixes)]
    for spec in app.scan.config_properties:
        rows.extend(section_rows(app.loaded, spec.prefix, app.section(spec.model)))
    width = max(len(key) for key, _v, _o in rows)
    value_width = min(max(len(value) for _k, value, _o in rows), 40)
    for key, value, origin in rows:
        print(f"{key:<{width}}  {value:<{value_width}}  {origin}")


if __name__ == "__main__":
    sys.exit(main())
