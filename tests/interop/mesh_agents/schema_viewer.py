#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture agent ``mesh-viewer``: depends on ``caption`` with ``expected_type=Caption``
(subset), so a schema-aware registry wires it only to a provider whose result has text and confidence."""

import mesh
from fastmcp import FastMCP
from pydantic import BaseModel

app = FastMCP("Mesh Viewer")


class Caption(BaseModel):
    text: str
    confidence: float


@app.tool()
@mesh.tool(capability="view", dependencies=[{"capability": "caption", "expected_type": Caption}])
async def view(text: str, caption: mesh.McpMeshTool | None = None) -> str:
    if caption is None:
        return "no compatible caption provider"
    found = await caption(text=text)
    return f"viewed: {found}"


@mesh.agent(name="mesh-viewer", version="1.0.0", http_port=0, auto_run=True)
class MeshViewer:
    """A schema-aware consumer."""
