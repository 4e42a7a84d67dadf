"""The registry's answer as a topology, and the difference between two topologies as events.

A topology maps each dependency slot (`module.qualname:dep_N`) to the provider the registry chose for it
(or None). Events say what changed: a dependency became available, changed provider or became
unavailable; an LLM tool list or provider changed (for the LLM features).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import field
from typing import Any, Literal

from .._frozen import frozen
from ..tools.wrapper_registry import dependency_key
from .proxy import DEFAULT_STREAM_TIMEOUT, Provider

__all__ = ["Resolution", "Topology", "TopologyEvent", "diff_topology", "parse_answer"]

EventKind = Literal[
    "dependency_available",
    "dependency_changed",
    "dependency_unavailable",
    "llm_tools_updated",
    "llm_provider_available",
    "llm_provider_unavailable",
]


@frozen
class Resolution:
    capability: str
    provider: Provider
    alternates: tuple[Provider, ...] = ()


@frozen
class Topology:
    dependencies: dict[str, Resolution | None] = field(default_factory=dict)
    llm_tools: dict[str, Any] = field(default_factory=dict)
    llm_providers: dict[str, Any] = field(default_factory=dict)


@frozen
class TopologyEvent:
    kind: EventKind
    key: str  # dependency slot key, or the tool name for LLM events
    resolution: Resolution | None = None
    data: Any = None


@frozen
class ToolSlots:
    """What the parser needs to know about one tool: its wrapper key and its dependencies' capabilities."""

    key: str
    capabilities: tuple[str, ...]


def _provider(entry: Mapping[str, Any]) -> Provider | None:
    agent_id, endpoint, function_name = (
        entry.get("agent_id"),
        entry.get("endpoint"),
        entry.get("function_name"),
    )
    if not (isinstance(agent_id, str) and isinstance(endpoint, str) and isinstance(function_name, str)):
        return None
    if not (agent_id and endpoint and function_name):
        return None
    kwargs = entry.get("kwargs")
    idempotent = isinstance(kwargs, Mapping) and kwargs.get("idempotent") is True
    return Provider(
        agent_id=agent_id,
        endpoint=endpoint,
        function_name=function_name,
        idempotent=idempotent,
        stream_timeout=_stream_timeout(kwargs),
    )


def _stream_timeout(kwargs: Any) -> float:
    """A provider's `kwargs.stream_timeout` (seconds), or MCP Mesh's default when absent or not positive."""
    value = kwargs.get("stream_timeout") if isinstance(kwargs, Mapping) else None
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    return DEFAULT_STREAM_TIMEOUT


def parse_answer(answer: Mapping[str, Any], tools: Mapping[str, ToolSlots]) -> Topology:
    """Read a `POST /heartbeat` answer; `tools` maps each tool's function name to its slots."""
    resolved = answer.get("dependencies_resolved") or {}
    dependencies: dict[str, Resolution | None] = {}
    for function_name, slots in tools.items():
        entries = resolved.get(function_name) if isinstance(resolved, Mapping) else None
        entries = entries if isinstance(entries, Sequence) else []
        for index, capability in enumerate(slots.capabilities):
            key = dependency_key(slots.key, index)
            entry = entries[index] if index < len(entries) and isinstance(entries[index], Mapping) else {}
            provider = _provider(entry) if entry.get("status", "available") == "available" else None
            if provider is None:
                dependencies[key] = None
                continue
            alternates = tuple(
                p
                for p in (_provider(a) for a in entry.get("alternates") or [] if isinstance(a, Mapping))
                if p is not None
            )
            dependencies[key] = Resolution(
                capability=str(entry.get("capability") or capability),
                provider=provider,
                alternates=alternates,
            )
    llm_tools = answer.get("llm_tools") if isinstance(answer.get("llm_tools"), Mapping) else {}
    llm_providers = answer.get("llm_providers") if isinstance(answer.get("llm_providers"), Mapping) else {}
    return Topology(dependencies, dict(llm_tools or {}), dict(llm_providers or {}))


def diff_topology(old: Topology, new: Topology) -> list[TopologyEvent]:
    events: list[TopologyEvent] = []
    for key in sorted(old.dependencies.keys() | new.dependencies.keys()):
        before, after = old.dependencies.get(key), new.dependencies.get(key)
        if before == after:
            continue
        if after is None:
            events.append(TopologyEvent("dependency_unavailable", key))
        elif before is None:
            events.append(TopologyEvent("dependency_available", key, after))
        else:
            events.append(TopologyEvent("dependency_changed", key, after))
    for name in sorted(old.llm_tools.keys() | new.llm_tools.keys()):
        if old.llm_tools.get(name) != new.llm_tools.get(name):
            events.append(TopologyEvent("llm_tools_updated", name, data=new.llm_tools.get(name) or []))
    for name in sorted(old.llm_providers.keys() | new.llm_providers.keys()):
        before, after = old.llm_providers.get(name), new.llm_providers.get(name)
        if before == after:
            continue
        kind: EventKind = "llm_provider_unavailable" if not after else "llm_provider_available"
        events.append(TopologyEvent(kind, name, data=after))
    return events
