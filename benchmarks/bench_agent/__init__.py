"""The benchmark agent: one async `add` tool and its sync twin `add_sync` (no config sections, no components).

`add_sync` is the same body as a plain `def`, which the framework runs in a worker thread: server_cpu.py
measures both in the same server process.

Served by `python -m mesh_framework.cli run bench_agent --config <this folder>/config --port N` with the
`benchmarks/` folder as the working directory. Its `config/application.yaml` sets logging to WARNING so
that log lines cost no CPU during a measurement.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from mesh_framework import mesh_agent, mesh_tool


@mesh_agent(name="bench", version="0.1.0", description="Benchmark agent: adds numbers")
class BenchAgent:
    """The application class: its package (`bench_agent`) is what the scan imports."""


@mesh_tool(capability="add", tags=["math"])
async def add(
    a: Annotated[int, Field(description="First addend")],
    b: Annotated[int, Field(description="Second addend")],
) -> int:
    """Add two integers."""
    return a + b


@mesh_tool(capability="add_sync", tags=["math"])
def add_sync(
    a: Annotated[int, Field(description="First addend")],
    b: Annotated[int, Field(description="Second addend")],
) -> int:
    """Add two integers (a sync tool: run in a worker thread)."""
    return a + b
