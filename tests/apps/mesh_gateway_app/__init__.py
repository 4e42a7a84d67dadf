"""The agent behind `mesh gateway` in its tests (run twice, under two names, for failover); beside it
`mesh_gateway_other` (a `convert` of its own: a name clash) and `mesh_gateway_front` (a tool that calls
`ask_name` here: input two hops away)."""

from __future__ import annotations

import asyncio
import os

from mesh_framework import InputRequired, Stream, ToolContext, elicit, mesh_agent, mesh_tool


@mesh_agent(name="tools", version="1.0.0")
class Tools:
    pass


REPLICA = os.environ.get("REPLICA", "1")  # which of two processes of this agent answered


@mesh_tool(tags=["text"])
def echo(text: str) -> dict[str, str]:
    """Echo the text back, naming the replica that answered."""
    return {"text": text, "replica": REPLICA}


@mesh_tool(tags=["units", "metric"])
def convert(value: float, unit: str) -> str:
    """Convert a length between metres and feet."""
    return f"{value * 3.28084 if unit == 'm' else value / 3.28084:.2f}"


@mesh_tool(tags=["text", "slow"])
async def count(n: int) -> Stream[str]:
    """Count from 1 to n, one chunk a number."""
    for i in range(1, n + 1):
        yield f"{i} "
        await asyncio.sleep(0)


@mesh_tool(capability="ask_name", tags=["input"])
async def ask_name(ctx: ToolContext) -> str | InputRequired:
    """Ask the user for a name (a multi-round-trip call), then greet it."""
    answer = ctx.input_responses.get("who")
    if answer is None or answer.get("action") != "accept":
        asked = elicit("Who is there?", {"name": {"type": "string"}}, ["name"])
        return InputRequired({"who": asked}, state={"asked": "who"})  # signed by this agent
    return f"name={answer['content']['name']}"


@mesh_tool(tags=["progress"])
async def steps(n: int, ctx: ToolContext) -> dict[str, int]:
    """Work through n steps, reporting each as progress and as an info log line."""
    for i in range(1, n + 1):
        await ctx.report_progress(i, n, message=f"step {i}")
        await ctx.info(f"did step {i}")
        await ctx.debug(f"step {i} in detail")
    return {"steps": n}


@mesh_tool(client_capabilities=["sampling"])
def needs_sampling() -> str:
    """Refused to a 2026-07-28 client that does not declare sampling."""
    return "sampled"
