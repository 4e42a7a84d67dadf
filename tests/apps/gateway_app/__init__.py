"""An agent re-serving catalog servers into the mesh (`mcp.gateway`), beside a tool of its own."""

from __future__ import annotations

from mesh_framework import ToolCallbackProvider, mesh_agent, mesh_tool


@mesh_agent(name="gateway", version="1.0.0")
class GatewayAgent:
    pass


@mesh_tool(capability="fails")
async def fails() -> str:
    """A local tool whose name one of the gateway server's tools also has."""
    return "the local one"


@mesh_tool()
async def catalog_tools(tools: ToolCallbackProvider) -> list[str]:
    """Names of the catalog tools this agent's tools may use."""
    return [c.definition.name for c in await tools.get_tool_callbacks()]
