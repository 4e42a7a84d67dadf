#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture agent ``mesh-media``: provides ``media.caption`` (tagged ``fast``, a Caption model)
and ``media.thumbnail``, for service interfaces of other agents."""

import mesh
from fastmcp import FastMCP
from pydantic import BaseModel

app = FastMCP("Mesh Media")


class Caption(BaseModel):
    text: str
    confidence: float


@app.tool()
@mesh.tool(capability="media.caption", tags=["fast"], description="A caption of the text.")
async def caption(text: str) -> Caption:
    return Caption(text=f"mesh sees {text}", confidence=0.75)


@app.tool()
@mesh.tool(capability="media.thumbnail", description="A thumbnail name.")
async def thumbnail(text: str, size: int = 64) -> str:
    return f"mesh-thumb({text},{size})"


@mesh.agent(name="mesh-media", version="1.0.0", http_port=0, auto_run=True)
class MeshMedia:
    """Provider of media.* capabilities."""
