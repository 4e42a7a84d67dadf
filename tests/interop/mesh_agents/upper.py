#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture agent ``mesh-upper``: provides capability ``upper`` (upper-cases ``text``)."""

import mesh
from fastmcp import FastMCP

app = FastMCP("Mesh Upper")


@app.tool()
@mesh.tool(capability="upper", version="1.0.0", description="Upper-case text.")
def upper(text: str) -> str:
    """Upper-case ``text``."""
    return text.upper() + " (mcp-mesh)"


@mesh.agent(name="mesh-upper", version="1.0.0", http_port=0, auto_run=True)
class MeshUpper:
    """Provider of the ``upper`` capability."""
