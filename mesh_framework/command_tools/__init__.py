"""Click (and Typer) commands served as MCP tools: `@mcp_command` and `commands.expose`."""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .command_marks import CommandMark, mcp_command

__all__ = ["CommandMark", "mcp_command"]

# Loaded on first use: an app that marks no command decides it without the marks' module.
__getattr__, __dir__ = lazy_exports(
    __name__, {"CommandMark": ".command_marks", "mcp_command": ".command_marks"}, globals()
)
