"""Two tools served as the same A2A skill id: a wiring error at start-up."""

from __future__ import annotations

from mesh_framework import mesh_a2a, mesh_agent, mesh_tool


@mesh_agent(name="a2a-bad")
class A2aBad:
    pass


@mesh_a2a(skill_id="greet")
@mesh_tool()
async def hello(name: str) -> str:
    return f"hello {name}"


@mesh_a2a(skill_id="greet")
@mesh_tool()
async def hi(name: str) -> str:
    return f"hi {name}"
