"""Our tool agent for the LLM benchmark (mirrors tests/interop/mesh_agents/adder.py): capability `add`.

Run from this folder: `python -m mesh_framework.cli run bench_llm_adder --port 0`. A top-level module, so
the scan imports only this file.
"""

from __future__ import annotations

from mesh_framework import mesh_agent, mesh_tool


@mesh_agent(name="llm-bench-adder", version="1.0.0", description="LLM benchmark: provider of add")
class LlmBenchAdder:
    """Provider of the `add` capability."""


@mesh_tool(capability="add", tags=["math"], version="1.0.0", description="Add two integers.")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b
