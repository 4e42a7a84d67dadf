"""A dependency whose expected type has no JSON Schema: start-up fails naming it."""

from __future__ import annotations

from mesh_framework import McpMeshTool, Selector, mesh_agent, mesh_tool


class Handle:
    """Not a model, a dataclass or a TypedDict."""


@mesh_agent(name="schema-bad")
class SchemaBad:
    pass


@mesh_tool(dependencies=[Selector("caption", expected_type=Handle)])
async def show(text: str, caption: McpMeshTool) -> str:
    return str(await caption(text=text))
