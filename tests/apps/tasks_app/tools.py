"""`greet` (sync-only), `slow_compute` and `failing_job` (task-supporting: background tools)."""

from __future__ import annotations

import asyncio

from mesh_framework import JobContext, mesh_tool


@mesh_tool()
def greet(name: str) -> str:
    return f"Hello, {name}!"


@mesh_tool(background=True)
async def slow_compute(seconds: float, job: JobContext, label: str = "") -> str:
    """Sleeps `seconds`, then answers; a cancel ends it `cancelled`."""
    job.progress(0, 1, f"computing {label}")
    await asyncio.sleep(seconds)
    return f"computed {label} in {seconds}s"


@mesh_tool(background=True)
async def failing_job() -> str:
    """Fails after about a second: a tool error."""
    await asyncio.sleep(1)
    raise RuntimeError("failing_job always fails")


@mesh_tool(background=True)
async def protocol_error_job() -> int:
    """Returns what its return type does not describe: a protocol-level (internal) error, not a tool error."""
    return "not a number"  # type: ignore[return-value]
