#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture agent ``mesh-label``: provides ``caption`` (version 2.0.0) answering a Labelled
(label, confidence): another shape than Caption."""

import mesh
from fastmcp import FastMCP
from pydantic import BaseModel

app = FastMCP("Mesh Label")


class Labelled(BaseModel):
    label: str
    confidence: float


@app.tool()
@mesh.tool(capability="caption", version="2.0.0", description="A label of the text.")
async def label(text: str) -> Labelled:
    return Labelled(label=text.upper(), confidence=0.5)


@mesh.agent(name="mesh-label", version="2.0.0", http_port=0, auto_run=True)
class MeshLabel:
    """Provider of caption with another shape."""
