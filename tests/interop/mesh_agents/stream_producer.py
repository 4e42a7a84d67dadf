#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture agent ``mesh-streamer``: tool ``mesh_chat(prompt)`` streams (``-> mesh.Stream[str]``).

Each ``yield`` becomes one ``notifications/progress`` message for the caller's progress token; the final
result is every chunk joined.
"""

import mesh
from fastmcp import FastMCP

app = FastMCP("Mesh Streamer")


@app.tool()
@mesh.tool(capability="mesh_chat", description="Answer word by word.")
async def mesh_chat(prompt: str) -> mesh.Stream[str]:
    """Four chunks, then the prompt."""
    for chunk in ["Mesh", " says", " hi", " to", f" {prompt}"]:
        yield chunk


@mesh.agent(name="mesh-streamer", version="1.0.0", http_port=0, auto_run=True)
class MeshStreamer:
    """Provider of the streaming ``mesh_chat`` capability."""
