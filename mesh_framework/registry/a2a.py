"""`GET /a2a/agents`: the A2A surfaces of the healthy agents, as MCP Mesh's registry lists them.

MCP Mesh's registry lists the surfaces of `a2a`-typed agents and stamps their URLs from
`MCP_MESH_PUBLIC_URL_PREFIX`; ours lists every agent that sent `surfaces` and stamps each URL from the
agent's own endpoint, so an agent's `A2aClient` finds a peer's skill by its id.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .store import AgentState

__all__ = ["a2a_surfaces"]

CARD = "/.well-known/agent.json"


def a2a_surfaces(states: Iterable[AgentState]) -> list[dict[str, Any]]:
    surfaces: list[dict[str, Any]] = []
    for state in states:
        registration = state.registration
        listed = registration.raw.get("surfaces")
        if not state.healthy or not isinstance(listed, list):
            continue
        for surface in listed:
            if not isinstance(surface, dict) or not isinstance(surface.get("path"), str):
                continue
            url = registration.endpoint.rstrip("/") + surface["path"]
            surfaces.append(
                {
                    "agent_card_url": url + CARD,
                    "agent_id": registration.agent_id,
                    "path": surface["path"],
                    "public_url": url,
                    "skill_id": surface.get("skill_id", ""),
                }
            )
    return surfaces
