"""The second starter agent: its tools depend on the `add` capability of the first one.

The dependency is resolved by the registry and injected by type; if no agent provides `add`, a call
answers at once with an error naming it.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from mesh_framework import McpMeshTool, mesh_agent, mesh_tool


@mesh_agent(
    name="calculator",
    version="0.1.0",
    description="Arithmetic built on other agents' tools",
    port=8081,
    scan=["starter_app.calculator"],
)
class CalculatorAgent:
    """Scans only this module: the greeter's components belong to the other agent."""


@mesh_tool(capability="sum_of_squares", tags=["math"], dependencies=["add"])
async def sum_of_squares(
    a: Annotated[int, Field(description="First number")],
    b: Annotated[int, Field(description="Second number")],
    add: McpMeshTool,
) -> int:
    """a² + b², the addition done by whichever agent provides `add`."""
    return int(await add(a=a * a, b=b * b))
