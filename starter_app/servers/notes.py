"""A small stdio MCP server keeping notes in memory: an ordinary MCP server, like the ones on npm.

The starter agent starts it through its catalog (`config/mcp-servers.json`) the first time a tool needs it:
`python -m starter_app.servers.notes`.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("notes")
notes: list[str] = []


@server.tool()
def add_note(text: str) -> int:
    """Keep a note; returns how many notes there are now."""
    notes.append(text)
    return len(notes)


@server.tool()
def list_notes() -> list[str]:
    """Every note kept so far, oldest first."""
    return list(notes)


if __name__ == "__main__":
    server.run()
