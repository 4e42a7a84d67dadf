"""An agent whose health check waits for a file, so its join of the mesh (which registers with that check's
verdict) stays under way until a test lets it go on; `hold` keeps a call in flight until a file appears.

`JOIN_CHECKING` names the file each health check writes when it starts, `JOIN_CHECKED` the file it waits for
(at most ~30 s; set `health.timeout` above that)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from mesh_framework import mesh_agent, mesh_tool


async def gated() -> str:
    checking, checked = Path(os.environ["JOIN_CHECKING"]), Path(os.environ["JOIN_CHECKED"])
    checking.write_text("checking")
    for _ in range(3000):
        if checked.exists():
            return "UP"
        await asyncio.sleep(0.01)
    return "UP"


@mesh_agent(name="slow-join", health_check=gated)
class SlowJoin:
    pass


@mesh_tool(capability="hold")
async def hold(started: str, release: str) -> str:
    """Writes `started`, then answers once `release` exists (at most ~30 s): a call held in flight."""
    Path(started).write_text("in flight")
    for _ in range(3000):
        if Path(release).exists():
            return "released"
        await asyncio.sleep(0.01)
    return "never released"
