"""Stream[str] tools: chunks as progress notifications, failures mid-stream, and a generator that records
whether its `finally` ran (read back with `stream_state`)."""

from __future__ import annotations

import asyncio

from mesh_framework import Stream, ToolContext, mesh_agent, mesh_tool

# What the `endless` generators did, for tests that stop reading: started, finished (their finally ran).
STATE = {"started": 0, "closed": 0, "yielded": 0}


@mesh_agent(name="streamer", version="1.0.0")
class Streamer:
    pass


@mesh_tool(capability="chat", tags=["stream"])
async def chat(prompt: str) -> Stream[str]:
    """Answers `prompt` word by word."""
    for word in ["Hello", " ", "world", "!", f" ({prompt})"]:
        yield word


@mesh_tool()
async def chat_fail(prompt: str) -> Stream[str]:
    """Three chunks, then a failure."""
    for word in ["one", "two", "three"]:
        yield word
    raise RuntimeError(f"boom mid-stream ({prompt})")


@mesh_tool()
async def endless(prefix: str = "tick") -> Stream[str]:
    """Yields until it is stopped; each chunk waits for the reader (the stream's backpressure)."""
    STATE["started"] += 1
    try:
        n = 0
        while True:
            yield f"{prefix} {n}"
            STATE["yielded"] += 1
            n += 1
            await asyncio.sleep(0)  # lets the reader run; the stream itself paces the loop
    finally:
        STATE["closed"] += 1


@mesh_tool()
def stream_state() -> dict[str, int]:
    """How many `endless` streams started and how many were closed."""
    return dict(STATE)


@mesh_tool()
async def many(count: int, size: int = 10) -> Stream[str]:
    """`count` chunks of `size` characters, as fast as the reader takes them."""
    for n in range(count):
        yield str(n % 10) * size


@mesh_tool()
async def narrated(steps: int, ctx: ToolContext) -> Stream[str]:
    """A stream tool that also logs through its ToolContext."""
    for n in range(steps):
        await ctx.info(f"step {n}")
        await ctx.report_progress(n, steps)  # not sent: the chunks are the progress of a stream
        yield f"<{n}>"


@mesh_tool()
async def stall(seconds: float) -> Stream[str]:
    """One chunk, then nothing for `seconds`, then another."""
    yield "before"
    await asyncio.sleep(seconds)
    yield "after"


@mesh_tool(stream_timeout=0.5)  # registered in kwargs: consumers wait at most 0.5 s for each chunk
async def stall_briefly(seconds: float) -> Stream[str]:
    """`stall` for consumers that give up on a chunk after half a second."""
    yield "before"
    await asyncio.sleep(seconds)
    yield "after"


@mesh_tool()
async def wrong_chunk() -> Stream[str]:
    """Yields a number where a str belongs."""
    yield "fine"
    yield 42  # type: ignore[misc]
