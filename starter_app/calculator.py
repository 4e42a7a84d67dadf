"""The second starter agent: its tools depend on the `add` capability of the first one.

The dependency is a service interface: the registry resolves its `add`, and a call of `sum_of_squares`
answers at once with an error naming `add` while no agent provides it.
"""

from __future__ import annotations

from typing import Annotated, Protocol

from pydantic import Field

from mesh_framework import mesh_agent, mesh_service, mesh_tool, selector


@mesh_agent(
    name="calculator",
    version="0.1.0",
    description="Arithmetic built on other agents' tools",
    port=8081,
    scan=["starter_app.calculator"],
)
class CalculatorAgent:
    """Scans only this module: the greeter's components belong to the other agent."""


@mesh_service
class Arithmetic(Protocol):
    """What `sum_of_squares` needs from the mesh, typed: each method calls whichever agent provides its
    capability, and its answer is checked against the return type."""

    @selector("add", required=True)
    async def add(self, a: int, b: int) -> int: ...


@mesh_tool(capability="sum_of_squares", tags=["math"])
async def sum_of_squares(
    a: Annotated[int, Field(description="First number")],
    b: Annotated[int, Field(description="Second number")],
    arithmetic: Arithmetic,
) -> int:
    """a² + b², the addition done by whichever agent provides `add`."""
    return await arithmetic.add(a=a * a, b=b * b)
