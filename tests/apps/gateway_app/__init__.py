"""An agent re-serving catalog servers into the mesh (`mcp.gateway`), beside a tool of its own."""

from __future__ import annotations

from mesh_framework import (
    FunctionToolCallback,
    ToolCallbackProvider,
    ToolsChanged,
    component,
    event_listener,
    mesh_agent,
    mesh_tool,
)
from mesh_framework.callbacks import StaticToolCallbackProvider


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


@component
class ToolWatch:
    """Receives the catalog provider by type and hears every change of a server's tools."""

    def __init__(self, tools: ToolCallbackProvider, local: LocalTools) -> None:
        self.tools = tools
        self.local = local
        self.changes: list[ToolsChanged] = []

    @event_listener
    def on_tools_changed(self, event: ToolsChanged) -> None:
        self.changes.append(event)


@component
class LocalTools(StaticToolCallbackProvider):
    """A user's own provider: a component like any other, injectable by its type."""

    def __init__(self) -> None:
        super().__init__([FunctionToolCallback.of(fails)])
