#!/usr/bin/env python3
"""mcp-mesh 3.8 twin of bench_ask.py: tool `mesh_ask` returns what the provider of `whoami` answers.

Without a provider it returns "whoami unavailable" (mcp-mesh injects None).
"""

import mesh
from fastmcp import FastMCP
from mesh.types import McpMeshTool

app = FastMCP("Mesh Ask")


@app.tool()
@mesh.tool(capability="ask", dependencies=["whoami"], description="Ask the provider of whoami who it is.")
async def mesh_ask(who: McpMeshTool | None = None) -> str:
    """The letter of the provider in use."""
    if who is None:
        return "whoami unavailable"
    return str(await who())


@mesh.agent(name="mesh-ask", version="1.0.0", http_port=0, auto_run=True)
class MeshAsk:
    """Consumer of the ``whoami`` capability."""
