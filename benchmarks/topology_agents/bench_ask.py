"""Our consumer for the topology benchmark: `ask` returns what the provider of `whoami` answers.

Run from this folder: `python -m mesh_framework.cli run bench_ask --port 0`. Without a provider a call
answers at once with an error naming the missing dependency.
"""

from __future__ import annotations

from mesh_framework import McpMeshTool, mesh_agent, mesh_tool


@mesh_agent(name="bench-ask", version="1.0.0", description="Topology benchmark consumer of whoami")
class BenchAsk:
    """Consumer of the `whoami` capability."""


@mesh_tool(capability="ask", dependencies=["whoami"], description="Ask the provider of whoami who it is.")
async def ask(whoami: McpMeshTool) -> str:
    """The letter of the provider in use."""
    return str(await whoami())
