#!/usr/bin/env python3
"""The chat agent of the streaming benchmark, MCP Mesh 3.8's: an ``@mesh.llm`` tool ``mesh_chat`` returning
``mesh.Stream[str]``, its model the mesh's ``llm`` provider (tests/interop/llm_provider.py, pointed at the
fake OpenAI server). Run with the mcp-mesh venv's python."""

import mesh
from fastmcp import FastMCP

app = FastMCP("Stream Bench Chat")


@app.tool()
@mesh.llm(provider={"capability": "llm", "tags": ["+fake"]}, max_iterations=1)
@mesh.tool(capability="mesh_chat", version="1.0.0", description="The mesh's LLM's answer, streamed.")
async def mesh_chat(question: str, llm: mesh.MeshLlmAgent = None) -> mesh.Stream[str]:
    """Stream the mesh's LLM's answer."""
    async for chunk in llm.stream(question):
        yield chunk


@mesh.agent(name="stream-bench-mesh-chat", version="1.0.0", http_port=0, auto_run=True)
class StreamBenchMeshChat:
    """Consumer of a streaming LLM provider."""
