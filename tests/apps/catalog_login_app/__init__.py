"""An agent whose tool calls `whoami` on the catalog server `books` (set in MESH_MCP__SERVERS): what the
server saw of the caller, to tell whose token the agent sent."""

from __future__ import annotations

from typing import Any

from mesh_framework import ToolCallbackProvider, mesh_agent, mesh_tool


@mesh_agent(name="catalog-login", version="1.0.0")
class CatalogLogin:
    pass


@mesh_tool(capability="ask_books")
async def ask_books(tools: ToolCallbackProvider) -> Any:
    """The books server's `whoami` answer."""
    return await (await tools.find("whoami")).call({})
