"""Click (and Typer) commands served as MCP tools (seed 002): `@mcp_command` and `commands.expose`."""

from .marks import CommandMark, mcp_command

__all__ = ["CommandMark", "mcp_command"]
