"""Header propagation: `relay` calls `headers_seen` on another agent, inside the incoming call."""

from __future__ import annotations

from typing import Any

from mesh_framework import McpMeshTool, mesh_agent, mesh_tool


@mesh_agent(name="front", version="1.0.0")
class Front:
    pass


@mesh_tool(dependencies=["headers_seen"])
async def relay(headers_seen: McpMeshTool | None = None) -> dict[str, Any]:
    """What the next agent received, called from inside this call."""
    assert headers_seen is not None
    return dict(await headers_seen())
