"""`@mcp_command`: mark an existing click (or Typer-built) command as an MCP tool; nothing else happens.

The mark is read at start-up by `plan_commands`, from the modules the agent scans. This module does not
import click, so marking costs nothing at import time.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, overload

from .._frozen import frozen

__all__ = ["COMMAND_ATTR", "CommandMark", "declares_commands", "mcp_command", "mark_of"]

COMMAND_ATTR = "__mesh_command__"
_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,128}$")

T = TypeVar("T")


@frozen
class CommandMark:
    """What `@mcp_command` recorded; `None` fields fall back to the `commands.*` settings."""

    name: str | None = None
    description: str | None = None
    background: bool | None = None
    timeout: float | None = None
    capability: str | None = None
    tags: tuple[str, ...] = ()


@overload
def mcp_command(command: T, /) -> T: ...
@overload
def mcp_command(
    *,
    name: str | None = None,
    description: str | None = None,
    background: bool | None = None,
    timeout: float | None = None,
    capability: str | None = None,
    tags: Sequence[str] = (),
) -> Callable[[T], T]: ...
def mcp_command(
    command: Any = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    background: bool | None = None,
    timeout: float | None = None,
    capability: str | None = None,
    tags: Sequence[str] = (),
) -> Any:
    """Serve a click command as an MCP tool (put it above `@click.command()` / `@group.command()`).

    The tool name is the command's path below its outermost group, joined by `_`, hyphens turned into
    underscores (`ops cassandra stress-start` → `cassandra_stress_start`), unless `name` is given.
    `background=False` runs it inline and answers with its output; by default it runs as a job
    (`commands.background`). `timeout` (seconds) kills a command that runs longer (`commands.timeout`).
    """
    if name is not None and not _NAME.match(name):
        raise ValueError(f"Command tool name {name!r} is invalid: use 1-128 letters, digits, '_', '-' or '.'")
    if timeout is not None and timeout <= 0:
        raise ValueError(f"Command timeout must be positive, got {timeout!r}")
    mark = CommandMark(name, description, background, timeout, capability, tuple(tags))

    def apply(target: T) -> T:
        if not callable(target):
            raise TypeError(f"@mcp_command applies to click commands, not {target!r}")
        setattr(target, COMMAND_ATTR, mark)
        return target

    return apply(command) if command is not None else apply


def mark_of(command: Any) -> CommandMark | None:
    """The mark on a click command, or on the function it was built from (decorator order either way)."""
    mark = command.__dict__.get(COMMAND_ATTR) if hasattr(command, "__dict__") else None
    if mark is None:
        mark = getattr(getattr(command, "callback", None), COMMAND_ATTR, None)
    return mark if isinstance(mark, CommandMark) else None


def declares_commands(modules: Sequence[str]) -> bool:
    """True when a variable of one of the (imported) `modules` carries the `@mcp_command` mark: the only
    place discovery looks for marked commands, checked here without importing click."""
    return any(
        mark_of(value) is not None
        for name in modules
        if (module := sys.modules.get(name)) is not None
        for value in list(vars(module).values())
    )
