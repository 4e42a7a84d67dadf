"""The `mesh` command: run agents, run a registry, inspect settings, list, inspect and call the mesh.

mesh run APP [APP ...] [--reload]   one agent, or several (with an embedded registry) in local processes
mesh config APP [--explain KEY]     every resolved setting with its origin, or every layer of one key
mesh beans APP                      every bean: type, scope, origin, and why each condition matched or not
mesh registry                       the embedded registry, standalone
mesh list                           the agents a registry knows
mesh status                         their health, last heartbeat and dependencies
mesh explain AGENT CAPABILITY       why the agent's dependency on CAPABILITY resolved as it did
mesh call TOOL [key=value ...]      call a tool of the mesh through the registry
mesh console                        the mesh page and its console, served for a registry
mesh gateway                        every tool of the mesh at one MCP endpoint (or search mode)
mesh catalog list|show NAME|export --format F [APP | --file PATH]
                                    the MCP servers of an app's catalog (or of catalog files)
mesh new NAME [--agent N] [--llm] [--catalog]   a new project (docs/new-project.md)
mesh install CLIENT (APP | --url URL) [--name N] [--dry-run]
                                    an app, an agent or the mesh in an MCP client's file (docs/clients.md)
mesh stdio (APP | --url URL)        MCP on stdin/stdout for a client that starts commands
mesh completion bash|zsh            a shell completion script

`--json` gives machine-readable output (list, status, config, beans, catalog list/show, call). Exit codes:
0 ok, 1 error, 2 usage, 3 the registry or agent cannot be reached; errors are one line on stderr. The
commands live in `mesh_framework.cli`, one module per group; this module assembles them, importing only the
group of the command run (the whole parser for help and completion).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from ..errors import MeshError
from .common import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_UNREACHABLE,
    EXIT_USAGE,
    CliError,
    Parser,
    Unreachable,
)
from .output import escape_text

__all__ = [
    "EXIT_ERROR",
    "EXIT_OK",
    "EXIT_UNREACHABLE",
    "EXIT_USAGE",
    "CliError",
    "Unreachable",
    "build_parser",
    "main",
]


def _app_options(parser: argparse.ArgumentParser, *, many: bool) -> None:
    parser.add_argument(
        "apps" if many else "app",
        nargs="*" if many else "?",
        help=("module(s)" if many else "module")
        + " holding a @mesh_agent class, e.g. starter_app (default: $MESH_APP)",
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


class _Version(argparse.Action):
    """`mesh --version`: the installed package's version, looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **_: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show the version")

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from .._version import __version__

        sys.stdout.write(f"mesh {__version__}\n")
        parser.exit(EXIT_OK)


# The command groups in `mesh --help` order: the module whose `register` adds them (relative to this
# package) and the commands it adds. `mesh COMMAND ...` imports only COMMAND's module (start-up: `mesh run`
# is an agent's start); help, completion and anything unknown get the whole parser.
_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (".run", ("run", "registry")),
    (".config_command", ("config",)),
    (".beans_command", ("beans",)),
    (".agents", ("list", "status")),
    (".resolution_explain", ("explain",)),
    (".call", ("call",)),
    (".console_command", ("console",)),
    (".gateway_command", ("gateway",)),
    (".catalog_commands", ("catalog",)),
    ("..scaffold.command", ("new",)),
    (".install", ("install", "stdio")),
    (".shell_completion", ("completion",)),
)
_WITH_APP_OPTIONS = {".run", ".config_command", ".beans_command"}
_WITH_ROOT = {".shell_completion"}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The `mesh` parser: every command, or only the group of `command` (what `main` parses it with)."""
    parser = Parser(
        prog="mesh",
        description="Run and inspect mesh_framework agents.",
        epilog="Exit codes: 0 ok, 1 error, 2 usage, 3 registry or agent not reachable.",
    )
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module_name, names in _GROUPS:
        if command is not None and command not in names:
            continue
        module = importlib.import_module(module_name, __package__)
        if module_name in _WITH_APP_OPTIONS:
            module.register(commands, _app_options)
        elif module_name in _WITH_ROOT:
            module.register(commands, parser)
        else:
            module.register(commands)
    return parser


def _only(argv: Sequence[str]) -> str | None:
    """The command `argv` names first, when its group alone can parse it (not `completion`, which
    describes the whole parser)."""
    first = argv[0] if argv else None
    known = {name for _, names in _GROUPS for name in names}
    return first if first in known and first != "completion" else None


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args, unknown = build_parser(_only(argv)).parse_known_args(argv)
    if unknown:  # said by the command they were given to (argparse would say `mesh: ...`)
        command = " ".join(["mesh", args.command, *([args.action] if getattr(args, "action", None) else [])])
        print(
            f"{command}: unrecognized arguments: {' '.join(unknown)} (see `{command} --help`)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())

    from ..logs import configure_logging

    configure_logging(args.log_level.upper() if getattr(args, "log_level", None) else "INFO")
    try:
        return int(args.handler(args))
    except CliError as exc:
        print(f"mesh {args.command}: {escape_text(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except MeshError as exc:  # settings, wiring: the first line names the app, each problem follows
        subject = " ".join(getattr(args, "apps", None) or [getattr(args, "app", None) or ""]).strip()
        said = escape_text(str(exc))
        print(f"mesh {args.command}: {subject + ': ' if subject else ''}{said}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return EXIT_OK
    except (ImportError, SyntaxError) as exc:  # the application's own code
        print(
            f"mesh {args.command}: cannot import the application: {type(exc).__name__}: {exc}",
            file=sys.stderr,
        )
        return EXIT_ERROR
    except BrokenPipeError:  # `mesh list | head`: the reader left; nothing more to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except Exception as exc:  # a bug: still one line (the traceback is logged at DEBUG)
        import logging

        logging.getLogger("mesh_framework").debug("mesh %s failed", args.command, exc_info=True)
        said = escape_text(str(exc))
        print(f"mesh {args.command}: unexpected {type(exc).__name__}: {said}", file=sys.stderr)
        return EXIT_ERROR
