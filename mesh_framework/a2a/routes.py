"""Which A2A routes an agent serves: its skills' (a2a/server.py, loading `a2a-sdk`), or, without skills,
card requests answered with a clear 404."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from ..config.settings import MeshSettings
from ..errors import WiringError
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .marks import skill_mark
from .skills import skills_of

__all__ = ["a2a_routes"]


def a2a_routes(settings: MeshSettings, tools: MeshToolWrapperRegistry, jobs: Any = None) -> list[BaseRoute]:
    """The skills' routes (`jobs`: the JobService running background tools), else the no-skill answers."""
    if not any(skill_mark(w.spec) is not None for w in tools):
        return _no_skill_routes(settings)
    owners: dict[str, list[str]] = {}
    for skill in skills_of(tools):
        owners.setdefault(skill.id, []).append(skill.wrapper.key)
    clashes = [
        f"A2A skill id '{skill}' is served by {len(keys)} tools ({', '.join(keys)}); give each "
        "@mesh_a2a(skill_id=...) its own"
        for skill, keys in owners.items()
        if len(keys) > 1
    ]
    if clashes:
        raise WiringError(clashes)
    try:
        from .server import skill_routes
    except ImportError as exc:
        raise WiringError(
            [f"A2A skills need the a2a extra: pip install 'mesh-framework[a2a]' ({exc})"]
        ) from None
    return skill_routes(settings, tools, getattr(jobs, "runner", None))


def _no_skill_routes(settings: MeshSettings) -> list[BaseRoute]:
    async def none(request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "error": f"agent '{settings.agent.name}' serves no A2A skills; mark a tool with @mesh_a2a "
                "(or @mesh_tool(a2a=True)) to serve it over A2A"
            },
            status_code=404,
        )

    path = settings.a2a.path
    return [
        Route("/.well-known/agent-card.json", none, methods=["GET"]),
        Route("/.well-known/agent.json", none, methods=["GET"]),
        Route(path + "/{skill}/.well-known/{card}", none, methods=["GET"]),
    ]
