"""Our consumer for the mesh benchmarks (mirrors tests/interop/mesh_agents/calc_consumer.py): tool `calc`
returns whatever the provider of `add` answers.

Run from this folder: `python -m mesh_framework.cli run bench_calc --port 0`. Without a provider a call
answers at once with an error naming the missing `add` dependency.
"""

from __future__ import annotations

from mesh_framework import McpMeshTool, mesh_agent, mesh_tool


@mesh_agent(name="bench-calc", version="1.0.0", description="Benchmark consumer of add")
class BenchCalc:
    """Consumer of the `add` capability."""


@mesh_tool(
    capability="calc", dependencies=["add"], description="Add a and b through the mesh capability 'add'."
)
async def calc(a: int, b: int, add: McpMeshTool) -> int:
    """Return a + b as computed by the injected `add` provider."""
    return int(await add(a=a, b=b))
