"""Stream tools the framework refuses at start-up, each for its own reason."""

from __future__ import annotations

from mesh_framework import Stream, mesh_agent, mesh_tool


@mesh_agent(name="stream-bad", version="1.0.0")
class StreamBad:
    pass


@mesh_tool()
async def numbers() -> Stream[int]:
    yield 1


@mesh_tool()
def blocking() -> Stream[str]:  # type: ignore[misc]
    yield "x"


@mesh_tool()
async def unannotated(n: int):  # type: ignore[no-untyped-def]
    yield str(n)


@mesh_tool(background=True)
async def in_background() -> Stream[str]:
    yield "x"


@mesh_tool(task=True)
async def as_job() -> Stream[str]:
    yield "x"
