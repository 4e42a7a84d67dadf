"""The A2A benchmark's agent: one tool, `echo`, served over MCP and as an A2A skill."""

from mesh_framework import mesh_a2a, mesh_agent, mesh_tool


@mesh_agent(name="a2a-bench", version="1.0.0")
class A2aBench:
    pass


@mesh_a2a(tags=["bench"])
@mesh_tool()
async def echo(text: str) -> str:
    """Echo the text."""
    return text
