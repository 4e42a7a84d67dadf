"""`mesh run APP [APP ...] [--reload]` and `mesh registry`: serve agents, or the embedded registry alone.

One app runs in this process; several run in child processes beside an embedded registry
(`launcher.run_agents`). `--reload` always uses child processes, restarted whenever a source file of an
app (its top-level package) or a settings file (its config folders) changes.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .common import (
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    cli_settings,
    profiles,
    registry_settings,
)

if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec
    from pathlib import Path

__all__ = ["register", "watch_paths"]


def register(commands: Any, app_options: Any) -> None:
    run = commands.add_parser("run", help="start one agent, or several with an embedded registry")
    app_options(run, many=True)
    run.add_argument(
        "--registry-port",
        type=int,
        default=None,
        help="port of the registry started for several agents (default: registry.embedded_port, 8000)",
    )
    run.add_argument(
        "--reload",
        action="store_true",
        help="restart the agent(s) when a source file of the app or a settings file changes (development)",
    )
    run.set_defaults(handler=_run)
    registry = commands.add_parser("registry", help="run the embedded registry standalone")
    registry.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    registry.add_argument("--port", type=int, default=None, help="default: registry.embedded_port (8000)")
    registry.add_argument("--db", default=None, metavar="FILE", help="SQLite file (default: in memory)")
    registry.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds without heartbeat before an agent is unhealthy (20)",
    )
    registry.set_defaults(handler=_serve_registry)


def _run(args: argparse.Namespace) -> int:
    apps = args.apps or ([os.environ["MESH_APP"]] if os.environ.get("MESH_APP") else [])
    if not apps:
        raise CliError("name the application module, e.g. `mesh run starter_app` (or MESH_APP)", EXIT_USAGE)
    repeated = sorted({app for app in apps if apps.count(app) > 1})
    if repeated:
        raise CliError(
            f"{', '.join(repeated)} is named more than once; each app runs once (several agents are "
            "several modules: `mesh run starter_app starter_app.calculator`)",
            EXIT_USAGE,
        )
    if len(apps) > 1 and (args.port not in (None, 0) or args.name is not None):
        raise CliError(
            "--port and --name apply to one agent; several agents use their own settings "
            "(agents.<name>.server.port), or --port 0 gives each a free port",
            EXIT_USAGE,
        )
    if args.reload:
        return _run_children(apps, args, watch=watch_paths(apps, args.config))
    if len(apps) > 1:
        return _run_children(apps, args, watch=[])
    return _run_one(apps[0], args)


def _run_one(app_name: str, args: argparse.Namespace) -> int:
    # This process is the agent's: while it imports the framework and loads the app, garbage collection is
    # paused (what start-up allocates lives on: collections then find nothing to free, about a fifth of the
    # CPU of the imports), and what was built is frozen out of later collections, as `serve` freezes what
    # it builds.
    collecting = gc.isenabled()
    gc.disable()
    try:
        from ..app import MeshApplication
        from ..logs import configure_logging

        app = MeshApplication.load(
            app_name, cli=cli_settings(args), profiles=profiles(args), config=args.config
        )
    finally:
        if collecting:
            gc.freeze()
            gc.enable()
    logs = app.settings.logging
    configure_logging(logs.level, format=logs.format, agent=app.settings.agent.name)
    app.run()
    return EXIT_OK


def _run_children(apps: list[str], args: argparse.Namespace, *, watch: Sequence[Path]) -> int:
    """Several agents (an embedded registry here), or any number under --reload (one agent minds its own
    registry, as without --reload)."""
    from ..launcher import RegistryPortTaken, run_agents
    from .progress import progress_display

    single = len(apps) == 1
    forwarded: list[str] = []
    for option, value in (
        ("--port", args.port if single or args.port == 0 else None),
        ("--host", args.host),
        ("--name", args.name if single else None),
        ("--config", args.config),
        ("--log-level", args.log_level),
        ("--registry-url", args.registry_url),
    ):
        if value is not None:
            forwarded += [option, str(value)]
    for profile in args.profile or []:
        forwarded += ["--profile", profile]
    if watch:
        import logging

        logging.getLogger("mesh_framework").info("--reload: watching %s", ", ".join(str(p) for p in watch))
    port = args.registry_port if args.registry_port is not None else None
    if port is None and not single:
        port = registry_settings().embedded_port
    import asyncio

    try:
        return asyncio.run(
            run_agents(
                apps,
                forwarded,
                registry_port=port or 0,
                external_registry=args.registry_url,
                start_registry=not single,
                watch=watch,
                progress=progress_display(),
            )
        )
    except RegistryPortTaken as exc:
        raise CliError(str(exc)) from None


def watch_paths(apps: Sequence[str], config: str | None) -> list[Path]:
    """What --reload watches: each app's top-level package (or module file) and the folders its settings
    may come from (`--config`/`MESH_CONFIG`, else `config/` in or beside the package, and `./config`).

    Found without importing the app (the agents import it, in their own processes).
    """
    from pathlib import Path

    paths: set[Path] = set()
    for app in apps:
        top, spec = _find(app)
        if top.submodule_search_locations:
            paths.update(Path(p).resolve() for p in top.submodule_search_locations)
        elif top.origin:
            paths.add(Path(top.origin).resolve())
        if spec.origin and spec.has_location:
            folder = Path(spec.origin).resolve().parent
            paths.update({folder / "config", folder.parent / "config"})
    explicit = config or os.environ.get("MESH_CONFIG")
    paths.add(Path(explicit).resolve() if explicit else Path.cwd() / "config")
    existing = sorted(p for p in paths if p.exists())
    return [p for p in existing if not any(p != q and p.is_relative_to(q) for q in existing)]


def _find(app: str) -> tuple[ModuleSpec, ModuleSpec]:
    """The specs of the top-level package of `app` and of `app` itself, found on the path (not imported)."""
    from importlib.machinery import PathFinder

    locations: list[str] | None = [os.getcwd(), *sys.path]
    found: list[ModuleSpec] = []
    parts = app.split(".")
    for i in range(len(parts)):
        spec = PathFinder.find_spec(".".join(parts[: i + 1]), locations)
        if spec is None:
            raise CliError(f"no module named '{app}' on the path; run `mesh` from the project folder")
        found.append(spec)
        locations = list(spec.submodule_search_locations or [])
    return found[0], found[-1]


def _serve_registry(args: argparse.Namespace) -> int:
    import asyncio

    from ..config.loader import load_settings
    from ..registry import DEFAULT_TIMEOUT, serve_registry
    from ..registry.auth import check_bind
    from ..security.tls import server_tls

    settings = load_settings().settings
    port = args.port if args.port is not None else settings.registry.embedded_port
    timeout = args.timeout if args.timeout is not None else DEFAULT_TIMEOUT
    token = settings.registry.token.get_secret_value() if settings.registry.token else None
    try:
        tls = server_tls(settings.tls)
        check_bind(args.host, token)
    except ValueError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    try:
        history = settings.registry.audit_history
        serving = serve_registry(
            args.host, port, database=args.db, timeout=timeout, token=token, ssl=tls, audit_history=history
        )
        asyncio.run(serving)
    except OSError as exc:
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise CliError(
            f"cannot listen on {args.host}:{port} ({reason}); choose another --port, or use the "
            "registry already running there"
        ) from None
    return EXIT_OK
