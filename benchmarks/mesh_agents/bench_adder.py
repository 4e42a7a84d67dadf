"""Our provider for the mesh benchmarks (mirrors tests/interop/mesh_agents/adder.py): capability `add`.

Run from this folder: `python -m mesh_framework.cli run bench_adder --port 0`. A top-level module, so the
scan imports only this file.
"""

from __future__ import annotations

from mesh_framework import mesh_agent, mesh_tool


@mesh_agent(name="bench-adder", version="1.0.0", description="Benchmark provider of add")
class BenchAdder:
    """Provider of the `add` capability."""


@mesh_tool(capability="add", tags=["math"], version="1.0.0", description="Add two integers.")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b
