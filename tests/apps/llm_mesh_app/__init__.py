"""An LLM tool whose model is a provider agent of the mesh and whose tools are mesh tools."""

from __future__ import annotations

from mesh_framework import MeshLlmAgent, mesh_agent, mesh_llm, mesh_tool


@mesh_agent(name="asker", version="1.0.0")
class Asker:
    pass


@mesh_tool()
@mesh_llm(provider={"capability": "llm", "tags": ["+fake"]}, filter=[{"capability": "add"}], max_iterations=5)
async def ask_mesh(question: str, llm: MeshLlmAgent) -> str:
    """Ask the mesh's LLM, which may use the mesh's `add`."""
    return str(await llm(question))
