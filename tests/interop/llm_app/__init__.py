"""Our `@mesh_llm` consumer for the mcp-mesh interop tests: a structured answer from the mesh's LLM.

Its provider is the mesh's `llm` capability preferring tag `fake` (an mcp-mesh `@mesh.llm_provider` in
tests/interop/test_interop_llm.py); the model may use the mesh's `add`.
"""

from __future__ import annotations

from pydantic import BaseModel

from mesh_framework import MeshLlmAgent, mesh_agent, mesh_llm, mesh_tool


@mesh_agent(name="sum-asker", version="1.0.0")
class SumAsker:
    pass


class Sum(BaseModel):
    """A sum and how it was found."""

    value: int
    explanation: str


@mesh_tool()
@mesh_llm(provider={"capability": "llm", "tags": ["+fake"]}, filter=[{"capability": "add"}], max_iterations=5)
async def sum_mesh(question: str, llm: MeshLlmAgent) -> Sum:
    """Ask the mesh's LLM for a `Sum` (structured output), which it may find with the mesh's `add`."""
    result: Sum = await llm(question)
    return result
