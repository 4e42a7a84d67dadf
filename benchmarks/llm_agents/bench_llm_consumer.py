"""Our `@mesh_llm` consumer in mesh-provider mode for the LLM benchmark: its model is the mesh's provider
of capability `llm` preferring tag `fake` (bench_llm_provider); the tools offered are the mesh's `add`.

Run from this folder: `python -m mesh_framework.cli run bench_llm_consumer --port 0`.
"""

from __future__ import annotations

from mesh_framework import MeshLlmAgent, mesh_agent, mesh_llm, mesh_tool


@mesh_agent(name="llm-bench-consumer", version="1.0.0")
class LlmBenchConsumer:
    """Consumer of an LLM provider and of the `add` capability."""


@mesh_tool()
@mesh_llm(
    provider={"capability": "llm", "tags": ["+fake"]}, filter=[{"capability": "add"}], max_iterations=20
)
async def ask_mesh(question: str, llm: MeshLlmAgent) -> str:
    """Ask the mesh's LLM, which may use the mesh's `add`."""
    return str(await llm(question))
