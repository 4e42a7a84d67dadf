#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture agent ``mesh-stream-asker``: an ``@mesh.llm`` consumer that streams, tool
``mesh_chat(question)`` returning ``mesh.Stream[str]`` (its provider selector gets ``ai.mcpmesh.stream``).

Its model is the mesh's provider of capability ``llm`` preferring tag ``fake``; the tools offered to the
model are the mesh's ``add`` tools. Run with the mcp-mesh venv's python (tests/interop/mcp_mesh.py).
"""

import mesh
from fastmcp import FastMCP

app = FastMCP("Mesh Stream Asker")


@app.tool()
@mesh.llm(
    provider={"capability": "llm", "tags": ["+fake"]},
    filter=[{"capability": "add"}],
    max_iterations=3,
    system_prompt="You are a calculator. Use tools.",
)
@mesh.tool(capability="mesh_chat", version="1.0.0", description="The mesh's LLM's answer, streamed.")
async def mesh_chat(question: str, llm: mesh.MeshLlmAgent = None) -> mesh.Stream[str]:
    """Stream the mesh's LLM's answer."""
    async for chunk in llm.stream(question):
        yield chunk


@mesh.agent(name="mesh-stream-asker", version="1.0.0", http_port=0, auto_run=True)
class MeshStreamAsker:
    """Consumer of a streaming LLM provider and of the ``add`` capability."""
