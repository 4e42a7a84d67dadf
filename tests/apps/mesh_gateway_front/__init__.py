"""An agent whose tool calls `ask_name` on another agent: that agent's question reaches the client through
this tool (and the gateway), and the client's answer reaches that agent."""

from __future__ import annotations

from mesh_framework import McpMeshTool, ToolContext, mesh_agent, mesh_tool


@mesh_agent(name="front", version="1.0.0")
class Front:
    pass


@mesh_tool(dependencies=["ask_name"], tags=["input"])
async def greet(ctx: ToolContext, ask_name: McpMeshTool | None = None) -> str:
    """Greet whoever the user names (asked by another agent's tool)."""
    assert ask_name is not None
    return f"hello, {await ask_name()}"
