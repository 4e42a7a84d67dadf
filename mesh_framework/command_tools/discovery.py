"""Which commands become tools: `@mcp_command` marks in the scanned modules, and what `commands.expose`
names (`package.module:attribute` for a group, or a module or package for its outermost commands). Every
problem is reported together, before serving."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Iterator, Sequence
from typing import Any

import click

from .._frozen import frozen
from ..config.loader import LoadedSettings
from .command_marks import CommandMark, mark_of
from .naming import check_name, tool_name
from .schema import CommandSchema, analyze_command

__all__ = ["CommandPlan", "plan_commands"]


@frozen
class CommandPlan:
    """One command served as a tool: how to find it in a fresh interpreter, and how to call it."""

    name: str
    reference: str  # `module:attribute` of the root command the child process invokes
    prog: str  # the root's name, as its own command line is called (`ops`)
    path: tuple[str, ...]  # words below the root (`("cassandra", "stress", "start")`)
    description: str
    schema: CommandSchema
    background: bool
    timeout: float | None
    capability: str
    tags: tuple[str, ...]

    @property
    def display(self) -> str:
        return " ".join([self.prog, *self.path])


def _as_click(value: object) -> Any:
    """A click command, or the command of a Typer app (Typer 0.2x builds it from its own click copy)."""
    if isinstance(value, click.Command):
        return value
    if type(value).__name__ == "Typer" and "typer" in sys.modules:
        import typer
        import typer.main

        return typer.main.get_command(value) if isinstance(value, typer.Typer) else None
    return None


def _subcommands(command: Any) -> dict[str, Any] | None:
    """A group's commands by name (click's and Typer's groups alike), or None for a command."""
    commands = getattr(command, "commands", None)
    return commands if isinstance(commands, dict) else None


def _walk(command: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every leaf command below `command` (itself if it is not a group), hidden ones left out."""
    subcommands = _subcommands(command)
    if subcommands is None:
        yield path, command
        return
    for name, sub in subcommands.items():
        if not getattr(sub, "hidden", False):
            yield from _walk(sub, (*path, name))


def _module_commands(modules: Sequence[str]) -> dict[int, tuple[str, click.Command]]:
    """Commands held by module variables of the scanned modules: id → (`module:attribute`, command)."""
    found: dict[int, tuple[str, click.Command]] = {}
    for name in modules:
        module = sys.modules.get(name)
        for attribute, value in list(vars(module).items()) if module else []:
            command = value if isinstance(value, click.Command) else None
            if command is not None and id(command) not in found:
                found[id(command)] = (f"{name}:{attribute}", command)
    return found


def _marked(modules: Sequence[str]) -> list[tuple[str, str, tuple[str, ...], click.Command, CommandMark]]:
    """Marked commands, each with its outermost group's reference and its path below that group."""
    commands = _module_commands(modules)
    parents: dict[int, tuple[click.Group, str]] = {}
    for _, command in commands.values():
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                parents.setdefault(id(sub), (command, name))
    result = []
    for reference, command in commands.values():
        mark = mark_of(command)
        if mark is None or isinstance(command, click.Group):
            continue
        path: list[str] = []
        root: click.Command = command
        seen = {id(root)}
        while id(root) in parents:
            group, name = parents[id(root)]
            path.insert(0, name)
            root = group
            if id(root) in seen:
                break
            seen.add(id(root))
        root_reference = commands[id(root)][0] if root is not command else reference
        prog = root.name or root_reference.rpartition(":")[2]
        result.append((root_reference, prog, tuple(path), command, mark))
    return result


def plan_commands(
    loaded: LoadedSettings, modules: Sequence[str], taken: dict[str, str]
) -> tuple[list[CommandPlan], list[str]]:
    """The command tools of an agent, and every problem found. `taken` maps tool names already served
    to where they come from (function tools), so a clash names both."""
    settings = loaded.settings.commands
    problems: list[str] = []
    # (root reference, root name, path below the root, command, mark, source, name prefix)
    found: list[tuple[str, str, tuple[str, ...], Any, CommandMark | None, str, tuple[str, ...]]] = []
    for reference, prog, path, command, mark in _marked(modules):
        found.append((reference, prog, path, command, mark, "@mcp_command", ()))
    origin = loaded.origin_of("commands.expose")
    for index, entry in enumerate(settings.expose):
        source = f"commands.expose[{index}]"
        if ":" in entry:  # one group (or command): names are paths below it
            root, problem = _resolve(entry)
            roots = [(entry, root)] if root is not None else []
        else:  # a module or package: every outermost command in it, names starting with the root's name
            roots, problem = _package_roots(entry)
        if not roots:
            problems.append(f"{source} = {entry!r} (from {origin}): {problem}")
            continue
        for reference, root in roots:
            prog = root.name or reference.rpartition(":")[2]
            below: tuple[str, ...] = () if ":" in entry else (prog,)
            for path, command in _walk(root, ()):
                found.append((reference, prog, path, command, mark_of(command), source, below))
    plans: list[CommandPlan] = []
    seen_commands: set[tuple[int, tuple[str, ...]]] = set()  # a marked command inside an exposed group
    names = dict(taken)
    for reference, prog, path, command, marked, source, prefix in found:
        if (id(command), path) in seen_commands:
            continue
        seen_commands.add((id(command), path))
        mark = marked or CommandMark()
        name = mark.name or tool_name((*prefix, *path) or (command.name or reference.rpartition(":")[2],))
        where = f"command '{' '.join((prog, *path))}' ({reference}, {source})"
        invalid = check_name(name)
        if invalid:
            problems.append(f"{where}: {invalid}; pass @mcp_command(name=...)")
            continue
        if name in names:
            problems.append(
                f"tool name '{name}' is used by both {names[name]} and {where}; rename one of the commands "
                "or pass @mcp_command(name=...)"
            )
            continue
        names[name] = where
        schema, description = analyze_command(command, f"{name}_arguments")
        own = settings.tools.get(name)
        background = mark.background if mark.background is not None else settings.background
        timeout = mark.timeout if mark.timeout is not None else settings.timeout
        if own is not None:  # settings of this tool (any layer) come above the code's mark
            background = own.background if own.background is not None else background
            timeout = own.timeout if own.timeout is not None else timeout
        plans.append(
            CommandPlan(
                name=name,
                reference=reference,
                prog=prog,
                path=path,
                description=mark.description if mark.description is not None else description,
                schema=schema,
                background=background,
                timeout=timeout,
                capability=mark.capability or name,
                tags=("command", *mark.tags),
            )
        )
    served = {plan.name for plan in plans}
    for unknown in [name for name in settings.tools if name not in served]:
        known = ", ".join(sorted(served)) or "none"
        key = f"commands.tools.{unknown}"
        given = next((o for k, o in loaded.origins.items() if k.startswith(key + ".")), None)
        problems.append(
            f"{key} (from {given or loaded.origin_of(key)}): no command tool is named '{unknown}' "
            f"(command tools: {known})"
        )
    return plans, problems


def _package_roots(name: str) -> tuple[list[tuple[str, Any]], str]:
    """The outermost click commands and groups of a module (and its submodules, for a package)."""
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        return [], f"cannot import '{name}' ({exc}); is its folder on sys.path?"
    names = [name]
    if hasattr(module, "__path__"):
        names += [info.name for info in pkgutil.walk_packages(module.__path__, name + ".")]
    for sub in names[1:]:
        try:
            importlib.import_module(sub)
        except Exception as exc:
            return [], f"importing '{sub}' failed ({type(exc).__name__}: {exc})"
    commands = _module_commands(names)
    nested = {id(sub) for _, c in commands.values() for sub in (_subcommands(c) or {}).values()}
    roots: list[tuple[str, Any]] = [
        (ref, c) for ref, c in commands.values() if id(c) not in nested and not c.hidden
    ]
    if not roots:
        return [], f"no click command or group is defined in '{name}'; name one as 'module:attribute'"
    return roots, ""


def _resolve(reference: str) -> tuple[Any, str]:
    module_name, sep, attribute = reference.partition(":")
    if not sep or not module_name or not attribute:
        return None, "not of the form 'package.module:attribute' (e.g. 'ops.cli:main')"
    try:
        value: object = importlib.import_module(module_name)
    except ImportError as exc:
        return None, f"cannot import '{module_name}' ({exc}); is its folder on sys.path?"
    for part in attribute.split("."):
        if not hasattr(value, part):
            return None, f"module '{module_name}' has no attribute '{attribute}'"
        value = getattr(value, part)
    command = _as_click(value)
    if command is None:
        return None, f"'{attribute}' is a {type(value).__name__}, not a click command or group (or Typer app)"
    return command, ""
