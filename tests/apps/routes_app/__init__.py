"""Web routes beside the MCP endpoint: JSON, a body, path and query parameters, a component injected,
dependencies on the mesh (one provided by this agent's own tool, one by nobody), streams (one failing
after its first chunks, one endless that records whether its `finally` ran) and a controller component."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException
from starlette.requests import Request

from mesh_framework import McpMeshTool, Stream, component, mesh_agent, mesh_route, mesh_tool

# What the `endless` stream did, read back with GET /api/state: started, closed (its finally ran).
STATE = {"started": 0, "closed": 0}


@mesh_agent(name="webby", version="1.0.0")
class Webby:
    pass


@component
class Greeter:
    def greet(self, name: str, times: int) -> str:
        return " ".join([f"Hello {name}!"] * times)


class Item(BaseModel):
    name: str = Field(min_length=1)
    quantity: int = Field(ge=1)


@mesh_tool(capability="upper")
def upper(text: str) -> str:
    """Upper-cases `text`."""
    return text.upper()


@mesh_route("/api/hello/{name}")
def hello(name: str, greeter: Greeter, times: int = 1) -> dict[str, str]:
    return {"greeting": greeter.greet(name, times)}


@mesh_route("/api/whoami")
def whoami(request: Request, greeter: Greeter) -> dict[str, str]:
    """Starlette's Request, injected by type beside a component."""
    return {"agent": request.headers.get("user-agent", ""), "greeting": greeter.greet("you", 1)}


@mesh_route("/api/items/{item_id:int}")
def find_item(item_id: int) -> dict[str, int]:
    if item_id != 1:
        raise HTTPException(404, f"no item {item_id}")
    return {"id": item_id}


@mesh_route("/api/boom")
def boom() -> str:
    raise ValueError("the database is on fire")


@mesh_route("/api/items", methods=["POST"])
async def add_item(item: Item, note: str = "") -> dict[str, object]:
    return {"added": item.name, "quantity": item.quantity, "note": note}


@mesh_route("/api/shout", dependencies=["upper"])
async def shout(text: str, up: McpMeshTool) -> dict[str, str]:
    return {"text": await up(text=text)}


@mesh_route("/api/missing", dependencies=["upper", "nowhere"])
async def missing(up: McpMeshTool, nowhere: McpMeshTool) -> str:
    return "unreachable"


@mesh_route("/api/optional", dependencies=["nowhere"])
async def optional(nowhere: McpMeshTool | None = None) -> dict[str, bool]:
    return {"injected": nowhere is not None}


@mesh_route("/api/stream")
async def stream(prompt: str = "you") -> Stream[str]:
    for chunk in ["Hello", " ", "a\nb", "", f"{prompt}!"]:
        yield chunk


@mesh_route("/api/stream-missing", dependencies=["nowhere"])
async def stream_missing(nowhere: McpMeshTool) -> Stream[str]:
    yield "never"


@mesh_route("/api/stream-fail")
async def stream_fail() -> Stream[str]:
    yield "one"
    yield "two"
    raise RuntimeError("late failure")


@mesh_route("/api/endless")
async def endless() -> Stream[str]:
    STATE["started"] += 1
    try:
        n = 0
        while True:
            n += 1
            yield f"tick {n}"
            await asyncio.sleep(0.01)
    finally:
        STATE["closed"] += 1


@mesh_route("/api/state")
async def state() -> dict[str, int]:
    current = asyncio.current_task()
    others = [t for t in asyncio.all_tasks() if t is not current and "endless" in repr(t.get_coro())]
    return {**STATE, "stream_tasks": len(others)}


@component
class Counter:
    """Controller style: a component whose methods are routes, with its own state."""

    def __init__(self, greeter: Greeter) -> None:
        self.greeter = greeter
        self.count = 0

    @mesh_route("/api/counter", methods=["POST"])
    def increment(self, by: int = 1) -> dict[str, int]:
        self.count += by
        return {"count": self.count}

    @mesh_route("/api/counter/greeting", methods=["GET"])
    def greeting(self) -> dict[str, str]:
        return {"greeting": self.greeter.greet("counter", 1), "count": str(self.count)}
