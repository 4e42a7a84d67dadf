"""Calls the secured agent's `add` through the mesh, with the token `auth.dependency_tokens.add` gives
(a package of its own: scanning it does not import the secured agent)."""

from __future__ import annotations

from mesh_framework import McpMeshTool, mesh_agent, mesh_tool


@mesh_agent(name="caller", version="1.0.0")
class Caller:
    pass


@mesh_tool(capability="double", dependencies=["add"])
async def double(x: int, add: McpMeshTool | None = None) -> int:
    """x + x, computed by the secured agent."""
    assert add is not None
    return int(await add(a=x, b=x))
