"""Routes the framework refuses at start-up, each with a message naming the route and the fix."""

from __future__ import annotations

from typing import Annotated

from fastapi import FastAPI
from pydantic import BaseModel

from mesh_framework import McpMeshTool, Stream, ToolContext, mesh_agent, mesh_route
from mesh_framework.fastapi import Bean, serve


@mesh_agent(name="bad-routes")
class BadRoutes:
    pass


class Item(BaseModel):
    name: str


@mesh_route("/items/{item_id}")
def lost_path_parameter(name: str) -> str:
    return name


@mesh_route("/context")
def wants_context(ctx: ToolContext) -> str:
    return "no"


@mesh_route("/get-body")
def body_on_get(item: Item) -> str:
    return item.name


@mesh_route("/numbers")
async def numbers() -> Stream[int]:  # type: ignore[type-var]
    yield 1


@mesh_route("/two-tools", dependencies=["one"])
def too_many(a: McpMeshTool, b: McpMeshTool) -> str:
    return "no"


@mesh_route("/same", methods=["GET", "POST"])
def first() -> str:
    return "first"


@mesh_route("/same", methods=["POST"])
def second() -> str:
    return "second"


class NotAComponent:
    pass


api = serve(FastAPI())


@api.get("/fa")
def uses_no_component(thing: Annotated[NotAComponent, Bean(NotAComponent)]) -> str:
    return "no"
