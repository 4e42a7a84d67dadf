"""Which A2A routes an agent serves: its skills' (a2a/a2a_server.py, loading `a2a-sdk`), or, without skills,
card requests answered with a clear 404."""

from __future__ import annotations

from typing import Any

from starlette.routing import BaseRoute

from ..config.settings import MeshSettings
from ..errors import WiringError
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .a2a_marks import skill_mark
from .auto_configuration import no_skill_routes
from .skills import skills_of

__all__ = ["a2a_routes"]


def a2a_routes(
    settings: MeshSettings, tools: MeshToolWrapperRegistry, jobs: Any = None, verifier: Any = None
) -> list[BaseRoute]:
    """The skills' routes (`jobs`: the JobService running background tools; `verifier`: the app's own
    TokenVerifier, else the one `auth.*` configures), else the no-skill answers."""
    if not any(skill_mark(w.spec) is not None for w in tools):
        return no_skill_routes(settings)
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
        from .a2a_server import skill_routes
    except ImportError as exc:
        raise WiringError(
            [f"A2A skills need the a2a extra: pip install 'mesh-framework[a2a]' ({exc})"]
        ) from None
    return skill_routes(settings, tools, getattr(jobs, "runner", None), verifier)
