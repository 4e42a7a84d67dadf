"""Calls the identity provider's `whoami` through the mesh, as the OAuth client `auth.client_credentials`
names (a package of its own: scanning it does not import the provider)."""

from __future__ import annotations

from mesh_framework import McpMeshTool, mesh_agent, mesh_tool


@mesh_agent(name="identity-caller", version="1.0.0")
class IdentityCaller:
    pass


@mesh_tool(capability="ask_whoami", dependencies=["whoami"])
async def ask_whoami(whoami: McpMeshTool | None = None) -> object:
    """Who the provider says called it."""
    assert whoami is not None
    return await whoami()
