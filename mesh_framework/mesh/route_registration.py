"""Web routes as MCP Mesh's registry sees them: one pseudo-tool `"METHOD:/path"` per route and method, with
`capability: ""` and the route's dependencies (as MCP Mesh's `@mesh.route` agents register)."""

from __future__ import annotations

from typing import Any

from ..schemas.wire import dependency_schema_fields
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .topology import ToolSlots

__all__ = ["route_entries", "route_slots"]


def _names(wrapper: Any) -> tuple[str, ...]:
    return tuple(wrapper.spec.kwargs["route_names"])  # set by routes/planning.py


def route_entries(routes: MeshToolWrapperRegistry, namespace: str) -> list[dict[str, Any]]:
    """The pseudo-tools of the routes that have dependencies or an LLM (MCP Mesh sends no others); an LLM
    route's filter and provider go with its first name, which its LLM agent follows."""
    entries = []
    for wrapper in routes:
        dependencies = wrapper.spec.dependencies
        llm_config = getattr(wrapper.llm_agent, "config", None)
        if not dependencies and llm_config is None:
            continue
        wire = [
            {
                "namespace": namespace,
                **d.selector.to_wire(),
                **({"required": True} if d.required else {}),
                **dependency_schema_fields(d.selector),  # an expected_type: schemas/wire.py
            }
            for d in dependencies
        ]
        for index, name in enumerate(_names(wrapper)):
            entry: dict[str, Any] = {
                "function_name": name,
                "capability": "",
                "version": wrapper.spec.version,
                "tags": [],
                "dependencies": wire,
            }
            if llm_config is not None and index == 0:
                entry.update(llm_config.heartbeat_fields(namespace))
            entries.append(entry)
    return entries


def route_slots(routes: MeshToolWrapperRegistry) -> dict[str, ToolSlots]:
    """Each pseudo-tool's name -> the route wrapper's key and dependency capabilities."""
    slots = {}
    for wrapper in routes:
        if wrapper.spec.dependencies:
            capabilities = tuple(d.selector.capability for d in wrapper.spec.dependencies)
            for name in _names(wrapper):
                slots[name] = ToolSlots(wrapper.key, capabilities)
    return slots
