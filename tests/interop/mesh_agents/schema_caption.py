#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture agent ``mesh-caption``: provides ``caption``, a Caption (text, confidence)."""

import mesh
from fastmcp import FastMCP
from pydantic import BaseModel

app = FastMCP("Mesh Caption")


class Caption(BaseModel):
    text: str
    confidence: float


@app.tool()
@mesh.tool(capability="caption", description="A caption of the text.")
async def caption(text: str) -> Caption:
    return Caption(text=f"mesh sees {text}", confidence=0.75)


@mesh.agent(name="mesh-caption", version="1.0.0", http_port=0, auto_run=True)
class MeshCaption:
    """Provider of caption."""
