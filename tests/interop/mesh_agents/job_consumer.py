#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture agent ``mesh-job-consumer``: tool ``mesh_plan(city)`` submits a job to the task
capability ``plan`` (served by our tests/apps/jobs_app) through the registry and waits for its result."""

import mesh
from fastmcp import FastMCP
from mesh.types import MeshJob

app = FastMCP("Mesh Job Consumer")


@app.tool()
@mesh.tool(capability="mesh_plan", dependencies=["plan"], description="Plan a city through a job.")
async def mesh_plan(city: str, plan: MeshJob = None) -> dict:
    """Submit ``plan(city)`` as a job and return its result with the job id."""
    if plan is None:
        return {"error": "plan unavailable"}
    proxy = await plan.submit(city=city, max_duration=60)
    result = await proxy.wait(timeout_secs=60)
    return {"result": result, "job_id": getattr(proxy, "job_id", None)}


@mesh.agent(name="mesh-job-consumer", version="1.0.0", http_port=0, auto_run=True)
class MeshJobConsumer:
    """Consumer of the task capability ``plan``."""
