"""Which project an agent belongs to, and the one line an agent logs when it joins a registry that holds
agents of other projects.

A project is the top-level package of the agent's app (`starter_app` for `starter_app.calculator` too),
sent as `project` in the heartbeat (MCP Mesh's registry accepts the field and ignores it; ours lists it in
`GET /agents`). Two projects that use the same registry (the embedded one on port 8000, say) resolve each
other's tools as one mesh does: the line says so, and how to keep them apart.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from typing import Any

import httpx2

from ..security.redaction import redact_url

__all__ = ["PROJECT_FIELD", "notice_other_projects", "other_projects", "project_of"]

logger = logging.getLogger("mesh_framework.mesh")

PROJECT_FIELD = "project"
MAX_NAMED = 3  # agents named per project in the line


def project_of(module: str) -> str:
    """The project of an app module: its top-level package."""
    return module.partition(".")[0]


def other_projects(listing: Any, own: str) -> dict[str, list[str]]:
    """Project -> agent names, for the listed healthy agents of a project other than `own` (agents that
    name no project, MCP Mesh's own for one, are left out: nothing says they are another project's)."""
    found: dict[str, list[str]] = {}
    agents = listing.get("agents") if isinstance(listing, dict) else None
    for agent in agents if isinstance(agents, list) else []:
        if not isinstance(agent, dict) or agent.get("status", "healthy") != "healthy":
            continue
        project = agent.get(PROJECT_FIELD)
        if isinstance(project, str) and project and project != own:
            found.setdefault(project, []).append(str(agent.get("name") or agent.get("id") or "?"))
    return found


async def notice_other_projects(
    http: httpx2.AsyncClient,
    url: Callable[[], str],
    own: str,
    registered: asyncio.Event,
    headers: Mapping[str, str] | None = None,
) -> None:
    """Once the agent is registered, read the registry's agents and log one line if some belong to other
    projects. Quiet when the registry cannot say (an unreachable registry is logged elsewhere)."""
    await registered.wait()
    registry = url()
    try:
        response = await http.get(registry + "/agents", headers=dict(headers or {}), timeout=5.0)
        listing = response.json() if response.status_code == 200 else None
    except (httpx2.HTTPError, ValueError) as exc:
        logger.debug("could not read the agents of %s: %s", registry, exc)
        return
    others = other_projects(listing, own)
    if not others:
        return
    named = "; ".join(
        f"{project} ({', '.join(sorted(names)[:MAX_NAMED])}{', ...' if len(names) > MAX_NAMED else ''})"
        for project, names in sorted(others.items())
    )
    logger.info(
        "the registry at %s also holds agents of other projects: %s; they and project %s resolve each "
        "other's tools as one mesh. To keep projects apart, give each its own registry "
        "(registry.embedded_port) or namespace (agent.namespace)",
        redact_url(registry),
        named,
        own,
    )
