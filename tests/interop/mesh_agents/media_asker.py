#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture agent ``mesh-media-asker``: an ``@mesh.llm`` consumer with a media parameter,
tool ``mesh_describe(question, image)``, which calls ``llm(question, media=[image])``.

Its model is the mesh's provider of capability ``llm`` preferring tag ``fake``; the tools offered to the
model are the mesh's ``render`` tools (ours, answering an image).
"""

import mesh
from fastmcp import FastMCP

app = FastMCP("Mesh Media Asker")


@app.tool()
@mesh.llm(
    provider={"capability": "llm", "tags": ["+fake"]}, filter=[{"capability": "render"}], max_iterations=3
)
@mesh.tool(capability="mesh_describe", version="1.0.0", description="Ask the mesh's LLM about an image.")
async def mesh_describe(
    question: str, image: mesh.MediaParam("image/*") = None, llm: mesh.MeshLlmAgent = None
) -> str:
    """Ask the mesh's LLM about an image."""
    return await llm(question, media=[image] if image else None)


@mesh.agent(name="mesh-media-asker", version="1.0.0", http_port=0, auto_run=True)
class MeshMediaAsker:
    """Consumer of an LLM provider, with media."""
