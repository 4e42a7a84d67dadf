#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture agent ``mesh-calc``: tool ``mesh_calc(a, b)`` depends on capability ``add``.

The mesh runtime injects a proxy for the provider of ``add`` into the ``adder`` parameter; the
tool returns whatever that provider answers (5 for a=2, b=3). Without a provider it returns
the string "add unavailable" instead of failing.
"""

import mesh
from fastmcp import FastMCP
from mesh.types import McpMeshTool

app = FastMCP("Mesh Calc")


@app.tool()
@mesh.tool(
    capability="calc",
    dependencies=["add"],
    description="Add a and b through the mesh capability 'add'.",
)
async def mesh_calc(a: int, b: int, adder: McpMeshTool | None = None) -> int | str:
    """Return a + b as computed by the injected ``add`` provider."""
    if adder is None:
        return "add unavailable"
    # The 3.8 proxy is async and takes the tool arguments as keywords (positional ones are ignored).
    return await adder(a=a, b=b)


@mesh.agent(name="mesh-calc", version="1.0.0", http_port=0, auto_run=True)
class MeshCalc:
    """Consumer of the ``add`` capability."""
