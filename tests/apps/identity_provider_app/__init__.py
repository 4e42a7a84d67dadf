"""An agent behind JWT authorization that tells who called: `whoami` through `ctx.access_token`, `scopes_of`
through an `AccessToken` parameter, and the route `GET /whoami` through the same parameter."""

from __future__ import annotations

from mesh_framework import ToolContext, mesh_agent, mesh_tool
from mesh_framework.routes import mesh_route
from mesh_framework.security import AccessToken


@mesh_agent(name="identity-provider", version="1.0.0")
class IdentityProvider:
    pass


@mesh_tool(capability="whoami")
async def whoami(ctx: ToolContext) -> dict[str, object]:
    """The caller's client id, subject and audience, from the verified token."""
    caller = ctx.access_token
    if caller is None:
        return {"client_id": None}
    return {"client_id": caller.client_id, "subject": caller.subject, "audience": list(caller.audience)}


@mesh_tool(capability="scopes_of")
def scopes_of(caller: AccessToken | None = None) -> list[str]:
    """The caller's scopes (an AccessToken parameter receives the caller)."""
    return sorted(caller.scopes) if caller is not None else []


@mesh_route("/whoami")
async def whoami_route(caller: AccessToken | None = None) -> dict[str, object]:
    return {"client_id": caller.client_id if caller is not None else None}
