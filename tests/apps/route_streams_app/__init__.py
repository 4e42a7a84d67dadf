"""Stream routes and a stream tool for stopping and leaving: `/api/rows` never awaits (rows of an in-memory
table) and records whether its `finally` ran, `/api/stall` sends one chunk then waits for a minute, the
tool `stall` does the same over MCP."""

from __future__ import annotations

import asyncio

from mesh_framework import Stream, mesh_agent, mesh_route, mesh_tool

TABLE = [f"row {n}" for n in range(100)]

# What `/api/rows` did, read back with GET /api/state: started, closed (its finally ran).
STATE = {"started": 0, "closed": 0}


@mesh_agent(name="route-streams", version="1.0.0")
class RouteStreams:
    pass


@mesh_route("/api/rows")
async def rows() -> Stream[str]:
    """Every row of the table, round and round, without ever awaiting."""
    STATE["started"] += 1
    try:
        while True:
            for row in TABLE:
                yield row
    finally:
        STATE["closed"] += 1


@mesh_route("/api/state")
async def state() -> dict[str, int]:
    return dict(STATE)


@mesh_route("/api/stall")
async def stall_route() -> Stream[str]:
    yield "before"
    await asyncio.sleep(60)
    yield "after"


@mesh_tool()
async def stall() -> Stream[str]:
    """One chunk, then nothing for a minute."""
    yield "before"
    await asyncio.sleep(60)
    yield "after"
