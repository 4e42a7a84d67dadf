"""A2A skills that tell who called: `whoami` (a plain skill: run in the request) through an `AccessToken`
parameter and `ctx.access_token`, and `whoami_stream` (a streaming skill: run as the SDK's task) through an
`AccessToken` parameter. Each answers the caller's client id and scopes, None and [] without a verifier."""

from __future__ import annotations

import json

from mesh_framework import Stream, ToolContext, mesh_a2a, mesh_agent, mesh_tool
from mesh_framework.security import AccessToken


@mesh_agent(name="identity-a2a-peer", version="1.0.0")
class IdentityA2aPeer:
    pass


def _who(caller: AccessToken | None) -> dict[str, object]:
    if caller is None:
        return {"client_id": None, "scopes": []}
    return {"client_id": caller.client_id, "scopes": sorted(caller.scopes)}


@mesh_a2a()
@mesh_tool()
async def whoami(text: str, ctx: ToolContext, caller: AccessToken | None = None) -> dict[str, object]:
    """The caller's client id and scopes; `same` says ctx.access_token is the parameter's caller."""
    return {"text": text, **_who(caller), "same": ctx.access_token == caller}


@mesh_a2a(skill_id="whoami-stream")
@mesh_tool()
async def whoami_stream(text: str, caller: AccessToken | None = None) -> Stream[str]:
    """The same, streamed as one chunk by a skill the SDK's task machinery runs."""
    yield json.dumps({"text": text, **_who(caller)})
