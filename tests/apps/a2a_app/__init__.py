"""A2A skills: a plain tool, a streaming tool, a tool reporting progress, a failing tool, a tool with two
arguments (a data part or JSON text), a background job, one plain MCP tool that is not a skill, and
consumer tools calling peers through an injected `A2aClient` (pointed at by settings or the registry)."""

from __future__ import annotations

import asyncio
from typing import Annotated

from mesh_framework import (
    A2aClient,
    A2aPeer,
    JobContext,
    Stream,
    ToolContext,
    ToolExecutionError,
    mesh_a2a,
    mesh_agent,
    mesh_tool,
)


@mesh_agent(name="a2a-agent", version="1.2.0", description="Skills over A2A")
class A2aAgent:
    pass


@mesh_a2a(tags=["demo"], examples=["hello"])
@mesh_tool(capability="echo", tags=["echo"])
async def echo(text: str) -> str:
    """Echo the text back."""
    return f"echo:{text}"


@mesh_tool(a2a=True)
async def words(text: str) -> Stream[str]:
    """Stream the text's words one by one."""
    for word in text.split():
        yield word + " "


@mesh_a2a(skill_id="slow-count")
@mesh_tool()
async def count(n: int, ctx: ToolContext) -> dict[str, int]:
    """Count to n, reporting progress."""
    for i in range(n):
        await ctx.report_progress(i + 1, n, f"counted {i + 1}")
        await asyncio.sleep(0)
    return {"counted": n}


@mesh_a2a()
@mesh_tool()
async def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@mesh_a2a()
@mesh_tool(background=True)
async def crunch(steps: int, job: JobContext) -> dict[str, int]:
    """A background job: reports each step, then answers; `steps` < 0 waits until it is cancelled."""
    if steps < 0:
        while not job.cancelled:
            await asyncio.sleep(0.01)  # a job body polls its own cancellation
        return {"steps": 0}
    for i in range(steps):
        job.progress(i + 1, steps, f"step {i + 1}")
        await asyncio.sleep(0.05)
    return {"steps": steps}


@mesh_a2a()
@mesh_tool()
async def fail(reason: str) -> str:
    """Always fails."""
    raise ToolExecutionError(f"asked to fail: {reason}")


@mesh_tool()
async def plain(text: str) -> str:
    """An MCP-only tool."""
    return text


@mesh_tool()
async def ask_peer(text: str, peer: Annotated[A2aClient, A2aPeer("echo")]) -> str:
    """Send text to the A2A peer `echo` and answer its text."""
    task = await peer.send(text)
    return f"{task.state}:{task.text}"


@mesh_tool()
async def ask_registry_peer(text: str, echo_text: Annotated[A2aClient, A2aPeer("echo-text")]) -> str:
    """Send text to the A2A skill `echo-text`, wherever the registry says it is served."""
    task = await echo_text.send(text)
    return f"{task.state}:{task.text}"


@mesh_tool()
async def sum_by_registry(a: int, b: int, add: A2aClient) -> str:
    """Add through the A2A skill `add` (the parameter's name), wherever the registry says it is served."""
    task = await add.send(data={"a": a, "b": b})
    return f"{task.state}:{task.text}"


@mesh_tool()
async def stream_peer(text: str, peer: Annotated[A2aClient, A2aPeer("words")]) -> str:
    """Stream text through the A2A peer `words`; answer the chunks joined by '|'."""
    chunks = [event.text async for event in peer.stream(text) if event.kind == "artifact" and event.text]
    return "|".join(chunks)
