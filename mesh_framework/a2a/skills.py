"""An agent's A2A skills: its `@mesh_a2a` tools with their defaults filled in (no `a2a-sdk` needed)."""

from __future__ import annotations

from typing import Any

from .._frozen import frozen
from ..config.settings import MeshSettings
from ..tools.wrapper import MeshToolWrapper
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .a2a_marks import PEER_CLIENTS, A2aSkillSpec, skill_mark

__all__ = ["A2aSkill", "a2a_heartbeat_fields", "consumes_a2a", "skills_of"]


@frozen
class A2aSkill:
    id: str
    name: str
    description: str
    tags: tuple[str, ...]
    spec: A2aSkillSpec
    wrapper: MeshToolWrapper

    def surface(self, path: str) -> dict[str, Any]:
        """The skill as MCP Mesh's registry lists an A2A surface."""
        return {
            "path": f"{path}/{self.id}",
            "skill_id": self.id,
            "name": self.name,
            "description": self.description,
            "input_modes": list(self.spec.input_modes),
            "output_modes": list(self.spec.output_modes),
            "tags": list(self.tags),
        }


def skills_of(tools: MeshToolWrapperRegistry) -> list[A2aSkill]:
    """The tools marked `@mesh_a2a` (or `a2a=True`) as skills."""
    found: list[A2aSkill] = []
    for wrapper in tools:
        spec = skill_mark(wrapper.spec)
        if spec is None:
            continue
        skill_id = spec.skill_id or wrapper.name
        found.append(
            A2aSkill(
                id=skill_id,
                name=spec.name or skill_id.replace("-", " ").replace("_", " ").title(),
                description=spec.description or wrapper.descriptor["description"] or skill_id,
                tags=spec.tags or wrapper.spec.tags or (wrapper.capability,),  # the card requires tags
                spec=spec,
                wrapper=wrapper,
            )
        )
    return found


def consumes_a2a(tools: MeshToolWrapperRegistry) -> bool:
    """Whether a tool takes an `A2aClient` (MCP Mesh's `a2a_consumer` flag)."""
    return any(p.bean == PEER_CLIENTS for w in tools for p in w.signature.injected)


def a2a_heartbeat_fields(settings: MeshSettings, tools: MeshToolWrapperRegistry) -> dict[str, Any]:
    """A2A in MCP Mesh's heartbeat fields (its registry's GET /agents shows the flags): a surface per skill.
    Nothing for an agent that uses no A2A, so other agents' heartbeats stay as they were."""
    skills = skills_of(tools)
    consumer = consumes_a2a(tools)
    if not skills and not consumer:
        return {}
    return {
        "surfaces": [skill.surface(settings.a2a.path) for skill in skills],
        "a2a_producer": bool(skills),
        "a2a_consumer": consumer,
    }
