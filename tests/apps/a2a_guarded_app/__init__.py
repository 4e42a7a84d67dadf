"""A2A skills behind tokens and limits: `echo` for any caller, `erase` only with the `admin` scope (it
says so when it runs), a stream and a plain result of a chosen size, a skill reporting many progress
messages, and a background job that waits until it is cancelled."""

from __future__ import annotations

import asyncio

from mesh_framework import JobContext, Stream, ToolContext, mesh_a2a, mesh_agent, mesh_tool


@mesh_agent(name="a2a-guarded", version="1.0.0", description="Skills with scopes and limits")
class A2aGuarded:
    pass


@mesh_a2a()
@mesh_tool()
async def echo(text: str) -> str:
    """Echo the text back."""
    return f"echo:{text}"


@mesh_a2a()
@mesh_tool(scopes=["admin"])
async def erase(text: str) -> str:
    """An admin's skill: says it ran."""
    return f"ERASED:{text}"


@mesh_a2a()
@mesh_tool()
async def flood(chunks: int) -> Stream[str]:
    """`chunks` chunks of 1000 characters each (at most 1000 chunks)."""
    for _ in range(min(chunks, 1000)):
        yield "x" * 1000


@mesh_a2a()
@mesh_tool()
async def big(size: int) -> str:
    """A result of `size` characters (at most 1 MB)."""
    return "y" * min(size, 1_000_000)


@mesh_a2a()
@mesh_tool()
async def chatter(n: int, ctx: ToolContext) -> str:
    """Reports `n` progress messages of 500 characters (at most 300), then answers."""
    n = min(n, 300)
    for i in range(n):
        await ctx.report_progress(i + 1, n, f"{i + 1:04d} " + "z" * 495)
        await asyncio.sleep(0)
    return "done"


@mesh_a2a()
@mesh_tool(background=True)
async def wait(steps: int, job: JobContext) -> str:
    """A background job that runs until it is cancelled."""
    while not job.cancelled:
        await asyncio.sleep(0.01)  # a job body polls its own cancellation
    return "stopped"
