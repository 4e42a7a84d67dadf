"""Every surface a caller reaches, with scopes: a tool (`ledger`), a route (`GET /reports`), a prompt
(`audit`), a resource (`books://2024`) and a resource template (`books://{year}/{month}`), each needing
`books` or `audit`; and one of each that needs nothing beyond a valid token."""

from __future__ import annotations

from mesh_framework import mesh_agent, mesh_prompt, mesh_resource, mesh_tool
from mesh_framework.routes import mesh_route
from mesh_framework.security import AccessToken


@mesh_agent(name="identity-scoped", version="1.0.0")
class IdentityScoped:
    pass


@mesh_tool(capability="ledger", scopes=["books"])
def ledger() -> str:
    return "ledger"


@mesh_tool(capability="open_tool")
def open_tool() -> str:
    return "open"


@mesh_route("/reports", scopes=["books", "reports"])
async def reports(caller: AccessToken | None = None) -> dict[str, object]:
    return {"for": caller.subject if caller is not None else None}


@mesh_route("/open")
async def open_route() -> dict[str, object]:
    return {"open": True}


@mesh_prompt(scopes=["audit"])
def audit(period: str) -> str:
    """Audit the books of a period."""
    return f"Audit {period}"


@mesh_prompt()
def greet(name: str) -> str:
    """Say hello."""
    return f"Hello {name}"


@mesh_resource("books://2024", scopes=["books"])
def books_2024() -> str:
    return "2024 books"


@mesh_resource("books://{year}/{month}", scopes=["audit"])
def books_month(year: str, month: str) -> str:
    return f"{year}-{month} books"


@mesh_resource("notes://readme")
def readme() -> str:
    return "read me"
