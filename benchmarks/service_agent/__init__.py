"""The provider of benchmarks/service_bench.py: one `media.caption` tool answering a Caption model.

Served by `python -m mesh_framework.cli run service_agent --config service_agent/config --port N` with the
`benchmarks/` folder as the working directory (logging at WARNING, no mesh).
"""

from __future__ import annotations

from pydantic import BaseModel

from mesh_framework import mesh_agent, mesh_tool


class Caption(BaseModel):
    text: str
    confidence: float


@mesh_agent(name="service-bench", version="0.1.0", description="Benchmark agent: captions")
class ServiceBenchAgent:
    """The application class: its package (`service_agent`) is what the scan imports."""


@mesh_tool(capability="media.caption")
async def caption(text: str) -> Caption:
    """A caption of `text`."""
    return Caption(text=text, confidence=0.5)
