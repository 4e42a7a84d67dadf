"""A FastAPI app of the user's own served by the agent, its handlers given a component (`Bean`) and mesh
dependencies (`MeshTool`) through `Depends`; the agent also has a tool, `upper`."""

from __future__ import annotations

from typing import Annotated

from fastapi import FastAPI

from mesh_framework import McpMeshTool, component, mesh_agent, mesh_tool
from mesh_framework.fastapi import Bean, MeshTool, serve


@mesh_agent(name="fastweb", version="1.0.0")
class FastWeb:
    pass


@component
class Greeter:
    def greet(self, name: str) -> str:
        return f"Hello {name}!"


@mesh_tool(capability="upper")
def upper(text: str) -> str:
    """Upper-cases `text`."""
    return text.upper()


api = serve(FastAPI(title="fastweb"))


@api.get("/fa/hello/{name}")
def hello(name: str, greeter: Annotated[Greeter, Bean(Greeter)]) -> dict[str, str]:
    return {"greeting": greeter.greet(name)}


@api.get("/fa/shout")
async def shout(text: str, up: Annotated[McpMeshTool, MeshTool("upper")]) -> dict[str, str]:
    return {"text": await up(text=text)}


@api.get("/fa/optional")
async def optional(
    nowhere: Annotated[McpMeshTool | None, MeshTool("nowhere", required=False)],
) -> dict[str, bool]:
    return {"injected": nowhere is not None}


@api.get("/fa/missing")
async def missing(nowhere: Annotated[McpMeshTool, MeshTool("nowhere")]) -> str:
    return "unreachable"
