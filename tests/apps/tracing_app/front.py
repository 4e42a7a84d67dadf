"""The first agent of the chain: `front` calls whichever agent provides `middle`."""

from __future__ import annotations

from mesh_framework import McpMeshTool, mesh_agent, mesh_tool


@mesh_agent(name="trace-front", version="1.0.0", scan=["tests.apps.tracing_app.front"])
class Front:
    pass


@mesh_tool(capability="front", dependencies=["middle"])
async def front(text: str, middle: McpMeshTool) -> str:
    """The chain's answer, seen from the front."""
    return "front>" + str(await middle(text=text))
