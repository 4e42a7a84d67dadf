"""`@mesh_a2a`: a tool also served as an A2A skill (MCP Mesh's `@mesh.a2a`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from .._frozen import frozen
from ..specs import ToolSpec

__all__ = ["A2A_ATTR", "PEER_CLIENTS", "A2aSkillSpec", "mesh_a2a", "skill_mark"]

A2A_ATTR = "__mesh_a2a__"
PEER_CLIENTS = "a2a_clients"  # the bean an A2aClient parameter is taken from: its [peer] (a2a/clients.py)
DEFAULT_MODES = ("text/plain", "application/json")
_SKILL_ID = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")

F = TypeVar("F", bound=Callable[..., Any])


@frozen
class A2aSkillSpec:
    """What `@mesh_a2a` recorded; `None` fields default to the tool's (name, description, tags)."""

    skill_id: str | None = None
    name: str | None = None
    description: str | None = None
    tags: tuple[str, ...] | None = None
    examples: tuple[str, ...] = ()
    input_modes: tuple[str, ...] = DEFAULT_MODES
    output_modes: tuple[str, ...] = DEFAULT_MODES


def mesh_a2a(
    skill_id: str | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    tags: Sequence[str] | None = None,
    examples: Sequence[str] = (),
    input_modes: Sequence[str] = DEFAULT_MODES,
    output_modes: Sequence[str] = DEFAULT_MODES,
) -> Callable[[F], F]:
    """Serve the `@mesh_tool` below as an A2A skill too (its Agent Card entry and JSON-RPC methods).

    `skill_id` defaults to the tool name, `name` to its Title Case, `description` and `tags` to the
    tool's. Usage::

        @mesh_a2a(tags=["demo"])
        @mesh_tool()
        async def echo(text: str) -> str:
            return text
    """
    if skill_id is not None and not _SKILL_ID.match(skill_id):
        raise ValueError(f"A2A skill id {skill_id!r} is invalid: use 1-64 letters, digits, '_' or '-'")
    if isinstance(tags, str) or isinstance(examples, str):
        raise ValueError("tags and examples are lists of strings")
    spec = A2aSkillSpec(
        skill_id,
        name,
        description,
        None if tags is None else tuple(tags),
        tuple(examples),
        tuple(input_modes),
        tuple(output_modes),
    )

    def mark(function: F) -> F:
        if not callable(function):
            raise TypeError(f"@mesh_a2a applies to functions and methods, not {function!r}")
        setattr(function, A2A_ATTR, spec)
        return function

    return mark


def skill_mark(spec: ToolSpec) -> A2aSkillSpec | None:
    """What `@mesh_a2a` recorded on a tool, else the defaults for `@mesh_tool(a2a=True)`; None: no skill."""
    found = getattr(spec.function, A2A_ATTR, None)
    if isinstance(found, A2aSkillSpec):
        return found
    return A2aSkillSpec() if spec.options.get("a2a") else None
