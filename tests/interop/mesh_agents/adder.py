#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture agent ``mesh-adder``: provides capability ``add``.

Run with the mcp-mesh venv's python (see tests/interop/mcp_mesh.py); it starts its own HTTP
server (auto_run) and registers with MCP_MESH_REGISTRY_URL.
"""

import mesh
from fastmcp import FastMCP

app = FastMCP("Mesh Adder")


@app.tool()
@mesh.tool(capability="add", tags=["math"], version="1.0.0", description="Add two integers.")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mesh.agent(name="mesh-adder", version="1.0.0", http_port=0, auto_run=True)
class MeshAdder:
    """Provider of the ``add`` capability."""
