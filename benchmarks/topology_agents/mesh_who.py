#!/usr/bin/env python3
"""mcp-mesh 3.8 twin of bench_who.py: capability `whoami` answers BENCH_WHO.

Run with the mcp-mesh venv's python (scripts/install-mcp-mesh.sh); it registers with MCP_MESH_REGISTRY_URL.
"""

import os

import mesh
from fastmcp import FastMCP

app = FastMCP("Mesh Who")


@app.tool()
@mesh.tool(capability="whoami", version="1.0.0", description="Which provider answers.")
def whoami() -> str:
    """This provider's letter."""
    return os.environ.get("BENCH_WHO", "?")


@mesh.agent(name="mesh-who", version="1.0.0", http_port=0, auto_run=True)
class MeshWho:
    """Provider of the ``whoami`` capability."""
