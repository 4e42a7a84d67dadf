"""The second agent of the chain: `middle` calls whichever agent provides `back`."""

from __future__ import annotations

from mesh_framework import McpMeshTool, mesh_agent, mesh_tool


@mesh_agent(name="trace-middle", version="1.0.0", scan=["tests.apps.tracing_app.middle"])
class Middle:
    pass


@mesh_tool(capability="middle", dependencies=["back"])
async def middle(text: str, back: McpMeshTool) -> str:
    """The rest of the chain's answer, from the middle."""
    return "middle>" + str(await back(text=text))
