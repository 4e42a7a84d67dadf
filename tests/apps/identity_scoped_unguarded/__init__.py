"""A route, a prompt and a resource with scopes, and no token verifier: a wiring error naming each."""

from __future__ import annotations

from mesh_framework import mesh_agent, mesh_prompt, mesh_resource, mesh_tool
from mesh_framework.routes import mesh_route


@mesh_agent(name="identity-unguarded", version="1.0.0")
class IdentityUnguarded:
    pass


@mesh_tool(capability="plain")
def plain() -> str:
    return "plain"


@mesh_route("/reports", scopes=["reports"])
async def reports() -> dict[str, object]:
    return {}


@mesh_prompt(scopes=["audit"])
def audit(period: str) -> str:
    return f"Audit {period}"


@mesh_resource("books://2024", scopes=["books"])
def books_2024() -> str:
    return "2024 books"
