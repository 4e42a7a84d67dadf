"""An agent behind MCP authorization: `add` needs scope `math`, `reset` needs `admin`, `hello` none."""

from __future__ import annotations

from mesh_framework import mesh_agent, mesh_tool


@mesh_agent(name="secured", version="1.0.0")
class Secured:
    pass


@mesh_tool(capability="add", scopes=["math"])
def add(a: int, b: int) -> int:
    """a + b."""
    return a + b


@mesh_tool(capability="reset", scopes=["admin"])
def reset() -> str:
    """Something only an administrator may do."""
    return "reset done"


@mesh_tool(capability="hello")
def hello() -> str:
    """Any valid token may call this."""
    return "hello"
