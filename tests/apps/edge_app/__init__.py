"""Every kind of HTTP surface an agent serves, for the guarded edge's tests: the MCP endpoint, a JSON route,
a form route, a served FastAPI app (a JSON and a form handler), an A2A skill, a static folder, a status
section, and a token verifier whose callers the routes can see."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Form
from pydantic import BaseModel
from starlette.requests import Request

from mesh_framework import mesh_a2a, mesh_agent, mesh_route, mesh_tool, status_section
from mesh_framework.fastapi import serve


@mesh_agent(name="edge-agent", version="1.0.0")
class EdgeAgent:
    pass


CALLS: dict[str, int] = {"echo": 0, "orders": 0}  # what a hostile page must never cause


@mesh_a2a()
@mesh_tool(capability="echo")
async def echo(text: str) -> str:
    """Echo the text."""
    CALLS["echo"] += 1
    return text


class Order(BaseModel):
    item: str
    quantity: int


@mesh_route("/api/orders", methods=["POST"])
async def place_order(order: Order) -> dict[str, Any]:
    CALLS["orders"] += 1
    return {"placed": order.item, "quantity": order.quantity}


@mesh_route("/api/feedback", methods=["POST"], accepts=["application/x-www-form-urlencoded"])
async def feedback(request: Request) -> dict[str, Any]:
    form = await request.form()
    return {"text": form.get("text")}


@mesh_route("/api/calls")
async def calls() -> dict[str, int]:
    return dict(CALLS)


@mesh_route("/api/caller")
async def caller(request: Request) -> dict[str, Any]:
    token = request.scope.get("state", {}).get("access_token")
    return {"client_id": getattr(token, "client_id", None)}


@status_section("edge")
def edge_status() -> dict[str, str]:
    return {"ok": "yes"}


api = serve(FastAPI(title="edge"), path="/fa")


@api.post("/json")
async def fa_json(order: Order) -> dict[str, Any]:
    return {"placed": order.item}


@api.post("/form")
async def fa_form(text: Annotated[str, Form()]) -> dict[str, Any]:
    return {"text": text}
