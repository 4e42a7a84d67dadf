"""Our `@mesh_llm` consumer in direct mode for the LLM benchmark: its model is `openai/gpt-fake`, called
through the official SDK at `llm.vendors.openai.base_url` (MESH_LLM__VENDORS__OPENAI__BASE_URL: the fake
OpenAI server); the tools offered to the model are the mesh's `add`.

Run from this folder: `python -m mesh_framework.cli run bench_llm_direct --port 0`.
"""

from __future__ import annotations

from mesh_framework import MeshLlmAgent, mesh_agent, mesh_llm, mesh_tool


@mesh_agent(name="llm-bench-direct", version="1.0.0")
class LlmBenchDirect:
    """Consumer of the `add` capability, with a model of its own."""


@mesh_tool()
@mesh_llm(provider="openai/gpt-fake", filter=[{"capability": "add"}], max_iterations=20)
async def ask_direct(question: str, llm: MeshLlmAgent) -> str:
    """Ask the model, which may use the mesh's `add`."""
    return str(await llm(question))
