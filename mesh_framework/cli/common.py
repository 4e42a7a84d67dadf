"""What every command shares: exit codes, the one-line error, options and the registry URL."""

from __future__ import annotations

import argparse
import difflib
import os
from typing import Any, NoReturn

from ..errors import MeshError

__all__ = [
    "EXIT_ERROR",
    "EXIT_OK",
    "EXIT_UNREACHABLE",
    "EXIT_USAGE",
    "CliError",
    "Parser",
    "Unreachable",
    "app_name",
    "cli_settings",
    "client_settings",
    "json_option",
    "profiles",
    "registry_option",
    "registry_settings",
    "registry_url",
]

# Exit codes scripts can rely on.
EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_UNREACHABLE = 0, 1, 2, 3


class CliError(MeshError):
    """A problem the command reports on one line, with its exit code."""

    def __init__(self, message: str, exit_code: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class Unreachable(CliError):
    """The registry (or an agent) cannot be reached: exit 3."""

    def __init__(self, message: str) -> None:
        super().__init__(message, EXIT_UNREACHABLE)


class Parser(argparse.ArgumentParser):
    """argparse with usage errors on one line (exit 2), for every subcommand too, and a suggestion for a
    mistyped choice (`mesh lst`: did you mean 'list'?)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see `{self.prog} --help`)\n")

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        choices = action.choices
        if choices is None or value in choices:
            return
        close = difflib.get_close_matches(str(value), [str(c) for c in choices], n=3)
        hint = f"did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        listed = ", ".join(str(c) for c in choices)
        if isinstance(action, argparse._SubParsersAction):  # `mesh lst`, `mesh catalog shwo`
            raise argparse.ArgumentError(
                None, f"unknown command {value!r}; {hint or 'the commands: ' + listed}"
            )
        raise argparse.ArgumentError(action, f"invalid choice: {value!r}; {hint or 'choose from ' + listed}")


def json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json", action="store_true", help="machine-readable JSON on stdout (errors stay on stderr)"
    )


def registry_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--registry-url",
        help="registry URL (default: $MCP_MESH_REGISTRY_URL, else the embedded registry's port on 127.0.0.1)",
    )


def app_name(explicit: str | None, command: str) -> str:
    """The application module named on the command line, else `$MESH_APP`; a usage error otherwise."""
    name = explicit or os.environ.get("MESH_APP")
    if not name:
        raise CliError(
            f"name the application module, e.g. `mesh {command} starter_app` (or MESH_APP)", EXIT_USAGE
        )
    return name


def cli_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The settings given as options (`--port`, ...), as the command-line layer's dotted keys."""
    return {
        "server.port": args.port,
        "server.host": args.host,
        "agent.name": args.name,
        "registry.url": args.registry_url,
        "logging.level": args.log_level,
    }


def profiles(args: argparse.Namespace) -> list[str] | None:
    if not getattr(args, "profile", None):
        return None
    return [p.strip() for value in args.profile for p in value.split(",") if p.strip()]


def registry_settings() -> Any:
    """The registry settings as the environment sets them (MCP_MESH_REGISTRY_URL, MESH_REGISTRY__...)."""
    from ..config.loader import load_settings

    return load_settings().settings.registry


def client_settings() -> Any | None:
    """The settings the commands that read the registry use (`registry.*`, `tls.*`, `auth.*`), as the
    environment sets them; None when it sets none: they are all defaults then, and not loaded (loading
    the settings takes longer than such a command's whole run)."""
    from ..config.environment import sets_settings

    if not sets_settings(os.environ):
        return None
    from ..config.loader import load_settings

    return load_settings().settings


def registry_url(explicit: str | None) -> str:
    from ..config.environment import EMBEDDED_PORT, embedded_registry_url

    if explicit:
        return explicit
    settings = client_settings()
    if settings is None:
        return embedded_registry_url(EMBEDDED_PORT)
    registry = settings.registry
    return next(iter(registry.endpoints()), None) or embedded_registry_url(registry.embedded_port)
