"""An A2A skill behind the app's own `TokenVerifier` component (no auth settings): `whoami`, for any
caller the component knows, and `erase`, only with the `admin` scope. Each answers the caller's client
id."""

from __future__ import annotations

from typing import ClassVar

from mesh_framework import component, mesh_a2a, mesh_agent, mesh_tool
from mesh_framework.security import AccessToken, TokenVerifier


@mesh_agent(name="identity-a2a-component", version="1.0.0")
class IdentityA2aComponent:
    pass


@component
class TeamVerifier(TokenVerifier):
    """Accepts the tokens of a team directory (here, a dictionary)."""

    directory: ClassVar[dict[str, tuple[str, frozenset[str]]]] = {
        "alice-token": ("alice", frozenset({"user"})),
        "root-token": ("root", frozenset({"admin"})),
    }

    async def verify(self, token: str) -> AccessToken | None:
        entry = self.directory.get(token)
        return AccessToken(client_id=entry[0], scopes=entry[1]) if entry else None


@mesh_a2a()
@mesh_tool()
async def whoami(text: str, caller: AccessToken | None = None) -> str:
    """The caller's client id."""
    return f"{text}:{caller.client_id if caller else None}"


@mesh_a2a()
@mesh_tool(scopes=["admin"])
async def erase(text: str, caller: AccessToken | None = None) -> str:
    """An admin's skill: says it ran, and for whom."""
    return f"ERASED:{text}:{caller.client_id if caller else None}"
