"""Background and task tools. `GATES` lets a test hold a job running until it releases it."""

from __future__ import annotations

import asyncio
import time

from mesh_framework import JobContext, McpMeshTool, MeshJob, mesh_tool
from mesh_framework.jobs.runner import POLL_TOOLS

GATES: dict[str, asyncio.Event] = {}


def gate(name: str) -> asyncio.Event:
    return GATES.setdefault(name, asyncio.Event())


@mesh_tool(background=True)
async def hold(name: str, job: JobContext) -> dict[str, str]:
    """Runs until the test opens the gate `name` (or the job is cancelled)."""
    job.progress(1, 2, f"waiting for {name}")
    await gate(name).wait()
    job.progress(2, 2, "released")
    return {"released": name}


@mesh_tool(background=True, max_concurrent=1)
async def exclusive(name: str, job: JobContext) -> str:
    """One at a time: waits for the gate `name`."""
    await gate(name).wait()
    return name


@mesh_tool(background=True)
def shout(text: str, times: int = 2) -> str:
    """A sync body: what it prints becomes the job's messages."""
    for i in range(times):
        print(f"{i + 1}: {text.upper()}")
    return text.upper()


@mesh_tool(background=True)
def spin(job: JobContext, limit: float = 30.0) -> str:
    """A sync body that stops when cancelled (checks between steps)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if job.wait_cancelled(0.01):
            return "stopped"
    return "limit"


@mesh_tool(background=True)
async def quick(n: int) -> int:
    return n * 2


@mesh_tool(background=True)
async def broken(reason: str) -> None:
    raise RuntimeError(reason)


@mesh_tool(task=True)
async def plan(city: str, job: MeshJob | None = None) -> dict[str, object]:
    """MCP Mesh's job tool: a plain call runs inline (job is None), a registry job runs as a job."""
    if job is not None:
        await job.update_progress(0.5, f"planning {city}")
    return {"city": city, "as_job": job is not None}


@mesh_tool(dependencies=["plan"])
async def plan_via_job(city: str, plan: McpMeshTool) -> dict[str, object]:
    """A consumer: submits a job to the capability `plan` through the registry and awaits its result."""
    job = await plan.submit(city=city)
    result = await job.result(timeout=30)
    row = await job.status()
    return {"result": result, "job_id": job.id, "progress_message": row["progress_message"]}


@mesh_tool(dependencies=["slow_square"])
async def square_via_job(n: int, square: McpMeshTool) -> dict[str, object]:
    """A consumer of mcp-mesh's task tool `slow_square` (tests/interop/mesh_agents/job_worker.py)."""
    job = await square.submit(n=n)
    result = await job.result(timeout=30)
    return {"result": result, "job_id": job.id, "status": (await job.status())["status"]}


@mesh_tool(background=True, timeout=0.2)
async def sleepy() -> str:
    """Runs past its 0.2 s timeout: the job fails naming the limit."""
    await asyncio.sleep(30)
    return "woke"


@mesh_tool(dependencies=["hold"])
async def hold_via_registry(name: str, hold: McpMeshTool) -> dict[str, object]:
    """Submits `hold` through the registry and answers that job's handle at once (`mesh call --wait`
    follows it)."""
    job = await hold.submit(name=name)
    return {"job_id": job.id, "status": "working", "tool": "hold", "poll": POLL_TOOLS}
