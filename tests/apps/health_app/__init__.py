"""A provider of `add` (version 2.0.0: preferred over the starter's) whose health follows a file.

`HEALTH_FILE` names a file holding UP, DEGRADED, DOWN, RAISE or HANG; the agent's `health_check` reads it.
`hold` keeps a call in flight until a file appears. The agent also carries one indicator of each other
kind: a `@health_indicator` function, a component method and a `HealthIndicator` component (all UP).
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

from mesh_framework import Health, component, health_indicator, mesh_agent, mesh_tool


def from_file() -> Any:
    path = os.environ.get("HEALTH_FILE")
    word = Path(path).read_text().strip() if path and Path(path).exists() else "UP"
    if word == "RAISE":
        raise RuntimeError("the database is gone")
    if word == "HANG":
        time.sleep(3600)
    return word


@mesh_agent(name="flaky-adder", version="2.0.0", health_check=from_file)
class FlakyAdder:
    pass


@mesh_tool(capability="add", version="2.0.0", tags=["math"])
async def add(a: int, b: int) -> int:
    """a + b."""
    return a + b


@mesh_tool(capability="hold")
async def hold(started: str, release: str) -> str:
    """Writes `started`, then answers once `release` exists (at most ~20 s): a call held in flight."""
    Path(started).write_text("in flight")
    for _ in range(2000):
        if Path(release).exists():
            return "released"
        await asyncio.sleep(0.01)
    return "never released"


@health_indicator
async def disk() -> Health:
    return Health.up(free_mb=1024)


@component
class Pool:
    @health_indicator("pool")
    def connections(self) -> bool:
        return True


@component
class CacheHealthIndicator:
    def health(self) -> Health:
        return Health.up(entries=3)
