"""`mesh new NAME [--agent NAME ...] [--llm] [--catalog] [--directory PATH] [--force]`.

`add_parser(subcommands)` adds the subcommand (its `handler` default is `run`); `run(args)` returns the exit
code: 0 created, 1 not created (files in the way, a write failed), 2 bad usage (an invalid name). Problems
are one line on stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["add_parser", "register", "run"]

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


def add_parser(subcommands: Any) -> argparse.ArgumentParser:
    """Add `new` to an argparse subparsers object (`parser.add_subparsers()`) and return its parser."""
    parser: argparse.ArgumentParser = subcommands.add_parser(
        "new",
        help="create a project: an agent, a component, tools, settings and tests",
        description="Create a project: a package with an agent, a component with a typed config section "
        "and tools, config/application.yaml with a dev profile, tests with the pytest kit, a README.",
    )
    parser.add_argument("name", help="project name: lowercase letters, digits, '-' and '_' (e.g. my-agent)")
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="NAME",
        help="another agent of the project, in its own module and port (repeat, or comma-separate)",
    )
    parser.add_argument("--llm", action="store_true", help="add an @mesh_llm tool and its test")
    parser.add_argument(
        "--catalog", action="store_true", help="add an MCP server catalog with a local stdio server"
    )
    parser.add_argument("--directory", "-d", metavar="PATH", help="where to create it (default: ./NAME)")
    parser.add_argument("--force", action="store_true", help="overwrite files that already exist")
    parser.set_defaults(handler=run)
    return parser


register = add_parser  # the name `mesh_framework.cli` modules use


def run(args: argparse.Namespace) -> int:
    """Create the project `args` describe; print where and what next, or one line saying why not."""
    from .errors import ExistingFilesError, InvalidNameError, ScaffoldError
    from .names import agent_names, project_names
    from .project import create_project

    agents = [name.strip() for value in args.agent for name in value.split(",") if name.strip()]
    try:
        folder = create_project(
            args.name,
            directory=args.directory,
            agents=agents,
            llm=args.llm,
            catalog=args.catalog,
            force=args.force,
        )
    except InvalidNameError as exc:
        return _fail(f"mesh new: {exc}", EXIT_USAGE)
    except ExistingFilesError as exc:
        return _fail(
            f"mesh new: {exc.found}; choose another --directory, or overwrite them with --force", EXIT_ERROR
        )
    except ScaffoldError as exc:
        return _fail(f"mesh new: {exc}", EXIT_ERROR)
    except OSError as exc:
        return _fail(f"mesh new: cannot write the project: {exc}", EXIT_ERROR)
    project = project_names(args.name)
    apps = " ".join(
        [project.package, *(f"{project.package}.{a.module}" for a in agent_names(agents, project))]
    )
    steps = [
        (f"cd {_shown(folder)}", ""),
        (f"mesh run {apps}", "# the agents; Ctrl-C stops them"),
        ("python -m pytest", "# the tests, in process"),
    ]
    width = max(len(command) for command, _ in steps) + 3
    sys.stdout.write(f"created {args.name} in {_shown(folder)}; next:\n")
    sys.stdout.write("".join(f"  {command.ljust(width)}{note}".rstrip() + "\n" for command, note in steps))
    return EXIT_OK


def _fail(message: str, code: int) -> int:
    sys.stderr.write(message.replace("\n", " ") + "\n")
    return code


def _shown(folder: Path) -> str:
    from pathlib import Path

    try:
        return os.path.relpath(folder) if folder.is_relative_to(Path.cwd()) else str(folder)
    except ValueError:
        return str(folder)
