#!/usr/bin/env python3
"""mcp-mesh 3.8 consumer for the LLM benchmark (tests/interop/llm_asker.py with room for more iterations
and no system prompt, like ours): an ``@mesh.llm`` tool ``mesh_ask(question)`` whose model is the mesh's
provider of capability ``llm`` preferring tag ``fake``, with the mesh's ``add`` tools.

Run with the mcp-mesh venv's python (scripts/install-mcp-mesh.sh); never imported by our agents' scan.
"""

import mesh
from fastmcp import FastMCP

app = FastMCP("LLM Bench Asker")


@app.tool()
@mesh.llm(
    provider={"capability": "llm", "tags": ["+fake"]}, filter=[{"capability": "add"}], max_iterations=20
)
@mesh.tool(capability="mesh_ask", version="1.0.0", description="Ask the mesh's LLM, which may use add.")
async def mesh_ask(question: str, llm: mesh.MeshLlmAgent = None) -> str:
    """Ask the mesh's LLM."""
    return await llm(question)


@mesh.agent(name="llm-bench-mesh-asker", version="1.0.0", http_port=0, auto_run=True)
class LlmBenchMeshAsker:
    """Consumer of an LLM provider and of the ``add`` capability."""
