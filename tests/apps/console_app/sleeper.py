"""`console-sleeper`: a slow tool, a Stream[str] tool, a background job with progress, a tool that fails,
and a tool whose input schema is nested (the console's form falls back to raw JSON for it)."""

from __future__ import annotations

import asyncio
import logging
from typing import Literal

from pydantic import BaseModel

from mesh_framework import JobContext, Stream, mesh_agent, mesh_tool

logger = logging.getLogger("console_app.sleeper")


@mesh_agent(name="console-sleeper", version="1.0.0", scan=["tests.apps.console_app.sleeper"])
class Sleeper:
    pass


@mesh_tool(capability="nap")
async def nap(seconds: float = 0.0) -> str:
    """Sleeps `seconds`, then answers."""
    logger.info("napping %s", seconds)
    await asyncio.sleep(seconds)
    return f"slept {seconds}"


@mesh_tool(capability="greet")
def greet(name: str, times: int = 1, loud: bool = False, mood: Literal["calm", "happy"] = "calm") -> str:
    """Greets `name`, `times` times."""
    text = f"hello {name} ({mood})"
    return " ".join([text.upper() if loud else text] * times)


@mesh_tool(capability="words")
async def words(count: int = 3) -> Stream[str]:
    """Streams `count` words."""
    for i in range(count):
        yield f"word{i + 1} "


@mesh_tool(capability="explode")
def explode(reason: str = "on purpose") -> str:
    """Always fails."""
    raise RuntimeError(f"exploded {reason}")


class Point(BaseModel):
    x: int
    y: int


class Route(BaseModel):
    name: str
    points: list[Point]


@mesh_tool(capability="route_length")
def route_length(route: Route) -> int:
    """Counts a route's points (a nested schema)."""
    return len(route.points)


@mesh_tool(background=True)
async def count_to(n: int, job: JobContext) -> dict[str, int]:
    """A background job that reports its progress."""
    for i in range(n):
        job.progress(i + 1, n, f"counted {i + 1}")
        await asyncio.sleep(0.05)
    return {"counted": n}
