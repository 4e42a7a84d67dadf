"""The agent whose tools call `relay_back`'s, which ask the client for input
(tests/clients/test_relayed_input.py). None of them takes a ToolContext: the questions are relayed by the
framework."""

from __future__ import annotations

from mesh_framework import McpMeshTool, mesh_agent, mesh_tool


@mesh_agent(name="relay-front", version="1.0.0")
class RelayFront:
    pass


@mesh_tool(dependencies=["ask_name"])
async def greet(ask_name: McpMeshTool | None = None) -> str:
    """Greet whoever the user names (asked by another agent's tool)."""
    assert ask_name is not None
    return f"hello, {await ask_name()}"


@mesh_tool(dependencies=["ask_name", "ask_date"])
async def plan(ask_name: McpMeshTool | None = None, ask_date: McpMeshTool | None = None) -> str:
    """Two dependencies that each ask: one question a round, each answer to the one that asked it."""
    assert ask_name is not None and ask_date is not None
    return f"{await ask_name()} on {await ask_date()}"


@mesh_tool(dependencies=["nested_name"])
async def deep(nested_name: McpMeshTool | None = None) -> str:
    """A question three tools away (this one, `nested_name`, then `ask_name` in that agent's process)."""
    assert nested_name is not None
    return f"deep {await nested_name()}"
