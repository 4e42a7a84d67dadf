"""Tool names that stay unique across servers: sanitized, at most 64 characters, clashes prefixed.

The default keeps a tool's own name (sanitized to `[A-Za-z0-9_-]`, cut to 64 characters); when a later
connection offers a name already taken, it becomes `alt_1_name`, then `alt_2_name`, in connection order.
`ToolNameGenerator.no_prefix()` refuses clashes instead, naming both servers.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..errors import CatalogError
from .connection_info import McpConnectionInfo
from .definition import ToolDefinition

__all__ = ["MAX_TOOL_NAME", "ToolNameClashError", "ToolNameGenerator", "sanitize_tool_name"]

MAX_TOOL_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


class ToolNameClashError(CatalogError):
    """Two connections offer a tool of the same name and the generator does not rename."""


def sanitize_tool_name(name: str) -> str:
    """`[A-Za-z0-9_-]` only (other characters become `_`), at most 64 characters, never empty."""
    return (_UNSAFE.sub("_", name) or "_")[:MAX_TOOL_NAME]


class ToolNameGenerator:
    """Names the tools of a connection. Subclass, or wrap a function with `ToolNameGenerator.of(fn)`."""

    def generate(self, info: McpConnectionInfo, tool: ToolDefinition) -> str:
        """The name a tool gets before clashes are looked at."""
        return sanitize_tool_name(tool.original_name)

    def on_clash(self, name: str, attempt: int, first: McpConnectionInfo, second: McpConnectionInfo) -> str:
        """A new name for `second`'s tool `name`, already used by `first`; `attempt` counts from 1."""
        return sanitize_tool_name(f"alt_{attempt}_{name}")

    @classmethod
    def of(cls, generate: Callable[[McpConnectionInfo, ToolDefinition], str]) -> ToolNameGenerator:
        """A generator from a function of `(connection_info, tool)`; clashes are still prefixed `alt_N_`."""
        return _FunctionNameGenerator(generate)

    @classmethod
    def no_prefix(cls) -> ToolNameGenerator:
        """Keep names as they are; two connections offering the same name fail discovery."""
        return _NoPrefix()

    @classmethod
    def server_prefix(cls) -> ToolNameGenerator:
        """`server_tool` for every tool: names say where they come from."""
        return _FunctionNameGenerator(
            lambda info, tool: sanitize_tool_name(f"{info.server_name}_{tool.original_name}")
        )


class _FunctionNameGenerator(ToolNameGenerator):
    def __init__(self, generate: Callable[[McpConnectionInfo, ToolDefinition], str]) -> None:
        self._generate = generate

    def generate(self, info: McpConnectionInfo, tool: ToolDefinition) -> str:
        return sanitize_tool_name(self._generate(info, tool))


class _NoPrefix(ToolNameGenerator):
    def on_clash(self, name: str, attempt: int, first: McpConnectionInfo, second: McpConnectionInfo) -> str:
        raise ToolNameClashError(
            f"tool name '{name}' is offered by both MCP server '{first.server_name}' and "
            f"'{second.server_name}'; use the default name generator (alt_N_ prefixes), a filter, or "
            "a custom generator"
        )


def assign_names(
    generator: ToolNameGenerator,
    tools: list[tuple[McpConnectionInfo, ToolDefinition]],
    taken: set[str] | None = None,
) -> list[ToolDefinition]:
    """Every tool renamed by `generator`, unique among themselves and `taken`, deterministic in order."""
    owners: dict[str, McpConnectionInfo] = {}
    reserved = set(taken or ())
    named: list[ToolDefinition] = []
    for info, tool in tools:
        base = generator.generate(info, tool)
        name, attempt = base, 0
        while name in owners or name in reserved:
            attempt += 1
            first = owners.get(name, info)
            name = generator.on_clash(base, attempt, first, info)
        owners[name] = info
        named.append(tool.renamed(name))
    return named
