"""Our provider for the topology benchmark: `whoami` answers which provider it is (BENCH_WHO).

Run from this folder: `BENCH_WHO=a python -m mesh_framework.cli run bench_who --port 0`.
"""

from __future__ import annotations

import os

from mesh_framework import mesh_agent, mesh_tool


@mesh_agent(name="bench-who", version="1.0.0", description="Topology benchmark provider of whoami")
class BenchWho:
    """Provider of the `whoami` capability."""


@mesh_tool(capability="whoami", version="1.0.0", description="Which provider answers.")
def whoami() -> str:
    """This provider's letter."""
    return os.environ.get("BENCH_WHO", "?")
