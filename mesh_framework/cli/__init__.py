"""The `mesh` command: `entry` assembles the command groups, one module each.

Every group module offers `register(commands)`, which adds its subcommand(s) with a `handler` that returns
the exit code. Output goes through `cli.output` (plain and stable when stdout is not a terminal, rich
tables and colour when it is, JSON with `--json`); problems are raised as `CliError`, printed on one line.
`main` and `build_parser` are loaded on first use, so importing one group does not import them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .entry import build_parser, main

__all__ = ["build_parser", "main"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import entry

        return getattr(entry, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
