#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture agent ``mesh-asker``: an ``@mesh.llm`` consumer, tool ``mesh_ask(question)``.

Its model is the mesh's provider of capability ``llm`` preferring tag ``fake``; the tools offered to
the model are the mesh's ``add`` tools. Run with the mcp-mesh venv's python (tests/interop/mcp_mesh.py).
"""

import mesh
from fastmcp import FastMCP
from pydantic import BaseModel

app = FastMCP("Mesh Asker")


@app.tool()
@mesh.llm(
    provider={"capability": "llm", "tags": ["+fake"]},
    filter=[{"capability": "add"}],
    max_iterations=3,
    system_prompt="You are a calculator. Use tools.",
)
@mesh.tool(capability="mesh_ask", version="1.0.0", description="Ask the mesh's LLM, which may use add.")
async def mesh_ask(question: str, llm: mesh.MeshLlmAgent = None) -> str:
    """Ask the mesh's LLM."""
    return await llm(question)


class Sum(BaseModel):
    """A sum and how it was found."""

    value: int
    explanation: str


@app.tool()
@mesh.llm(
    provider={"capability": "llm", "tags": ["+fake"]},
    filter=[{"capability": "add"}],
    max_iterations=3,
    system_prompt="You are a calculator. Use tools.",
)
@mesh.tool(capability="mesh_sum", version="1.0.0", description="Ask the mesh's LLM for a structured sum.")
async def mesh_sum(question: str, llm: mesh.MeshLlmAgent = None) -> Sum:
    """Ask the mesh's LLM for a ``Sum`` (structured output)."""
    return await llm(question)


@mesh.agent(name="mesh-asker", version="1.0.0", http_port=0, auto_run=True)
class MeshAsker:
    """Consumer of an LLM provider and of the ``add`` capability."""
