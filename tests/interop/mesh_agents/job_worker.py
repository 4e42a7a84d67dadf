#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture agent ``mesh-job-worker``: task tool ``slow_square`` (``@mesh.tool(task=True)``).

A job submitted through the registry is claimed by this agent's worker loop and runs with a ``MeshJob``;
a plain ``tools/call`` runs inline with ``job`` None.
"""

import mesh
from fastmcp import FastMCP
from mesh.types import MeshJob

app = FastMCP("Mesh Job Worker")


@app.tool()
@mesh.tool(capability="slow_square", task=True, description="Square n, as a job.")
async def slow_square(n: int, job: MeshJob = None) -> dict:
    """Square ``n``; reports progress when it runs as a job."""
    if job is not None:
        await job.update_progress(0.5, f"squaring {n}")
    return {"square": n * n, "as_job": job is not None}


@mesh.agent(name="mesh-job-worker", version="1.0.0", http_port=0, auto_run=True)
class MeshJobWorker:
    """Provider of the task capability ``slow_square``."""
