"""Click (and Typer) commands served as MCP tools: `@mcp_command` and `commands.expose`."""

from .command_marks import CommandMark, mcp_command

__all__ = ["CommandMark", "mcp_command"]
