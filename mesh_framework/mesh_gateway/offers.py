"""What the gateway serves: the registry's listing (`GET /agents`) → offers → one served tool per name.

An offer is one agent's tool. Offers of one name that agree (same capability, same input schema) are one
served tool whose calls fail over between those agents. Offers of one name that differ are different tools:
each keeps the name prefixed by its agent's name (`weather_forecast` for agent `weather`'s `forecast`),
so a client sees stable names that say whose tool it is. Framework tools (the job tools, the status
tool) are agent-specific and never served; unhealthy agents' tools are left out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from typing import Any

from .._frozen import frozen

__all__ = ["GatewayFilter", "Offer", "ServedTool", "offers_of", "plan_tools"]

MAX_NAME = 128  # MCP tool names: 1 to 128 characters of [A-Za-z0-9_.-]
_NOT_NAME = re.compile(r"[^A-Za-z0-9_.-]+")
_ANY_ARGUMENTS: dict[str, Any] = {"type": "object"}


@frozen
class Offer:
    """One healthy agent's tool, as the registry lists it."""

    agent_id: str
    agent_name: str
    namespace: str
    endpoint: str
    function_name: str
    capability: str
    description: str
    tags: tuple[str, ...]
    version: str
    input_schema: Mapping[str, Any]
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    @property
    def streams(self) -> bool:
        """A `Stream[str]` tool (MCP Mesh's `stream_type` mark): its chunks are relayed as they come."""
        return bool(self.kwargs.get("stream_type"))

    @property
    def variant(self) -> tuple[str, str]:
        """What makes two offers of one name the same tool: capability and input schema."""
        return self.capability, json.dumps(self.input_schema, sort_keys=True, separators=(",", ":"))


@frozen
class GatewayFilter:
    """Which offers are served: every tag of `tags`, none of `exclude_tags`, and when given, only these
    namespaces and agents (by name or id)."""

    tags: frozenset[str] = frozenset()
    exclude_tags: frozenset[str] = frozenset()
    namespaces: frozenset[str] = frozenset()
    agents: frozenset[str] = frozenset()

    def admits(self, offer: Offer) -> bool:
        tags = set(offer.tags)
        if not self.tags <= tags or self.exclude_tags & tags:
            return False
        if self.namespaces and offer.namespace not in self.namespaces:
            return False
        return not self.agents or bool({offer.agent_name, offer.agent_id} & self.agents)


@frozen
class ServedTool:
    """One tool of the gateway: its name, what clients see, and the agents that serve it (first preferred)."""

    name: str
    function_name: str
    capability: str
    description: str
    input_schema: Mapping[str, Any]
    tags: tuple[str, ...]
    providers: tuple[Offer, ...]

    @property
    def streams(self) -> bool:
        return any(p.streams for p in self.providers)

    @property
    def descriptor(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "inputSchema": dict(self.input_schema)}


def _is_framework_tool(name: str) -> bool:
    # the job tools and the status tool every agent adds: their answers belong to that one agent
    return name.startswith("__mesh_job_") or name == "get_server_status"


def offers_of(agents: Iterable[Any]) -> list[Offer]:
    """The offers of a `GET /agents` listing (ours, or MCP Mesh's without schemas: any object then)."""
    found: list[Offer] = []
    for agent in agents:
        if not isinstance(agent, Mapping) or agent.get("status", "healthy") != "healthy":
            continue
        endpoint = agent.get("endpoint")
        agent_id = str(agent.get("id") or agent.get("agent_id") or "")
        if not isinstance(endpoint, str) or not endpoint or not agent_id:
            continue
        for tool in agent.get("capabilities") or agent.get("tools") or []:
            if not isinstance(tool, Mapping) or tool.get("available") is False:
                continue
            name = tool.get("function_name") or tool.get("name")
            if not isinstance(name, str) or not name or _is_framework_tool(name):
                continue
            schema = tool.get("input_schema") or tool.get("inputSchema")
            kwargs = tool.get("kwargs")
            tags = tool.get("tags")
            found.append(
                Offer(
                    agent_id=agent_id,
                    agent_name=str(agent.get("name") or agent_id),
                    namespace=str(agent.get("namespace") or "default"),
                    endpoint=endpoint,
                    function_name=name,
                    capability=str(tool.get("name") or tool.get("capability") or name),
                    description=str(tool.get("description") or ""),
                    tags=tuple(str(t) for t in tags) if isinstance(tags, list) else (),
                    version=str(tool.get("version") or ""),
                    input_schema=schema if isinstance(schema, Mapping) else _ANY_ARGUMENTS,
                    kwargs=kwargs if isinstance(kwargs, Mapping) else {},
                )
            )
    return found


def _clean(name: str) -> str:
    return _NOT_NAME.sub("_", name).strip("_")[:MAX_NAME] or "tool"


def plan_tools(offers: Sequence[Offer], only: GatewayFilter | None = None) -> list[ServedTool]:
    """The served tools, sorted by name: one per name, or one per variant (agent-prefixed) on a clash."""
    admitted = [o for o in offers if only is None or only.admits(o)]
    by_name: dict[str, dict[tuple[str, str], list[Offer]]] = {}
    for offer in sorted(admitted, key=lambda o: (o.agent_name, o.agent_id)):
        by_name.setdefault(offer.function_name, {}).setdefault(offer.variant, []).append(offer)
    tools: dict[str, ServedTool] = {}
    clashes: list[tuple[str, list[Offer]]] = []
    for name, variants in by_name.items():
        if len(variants) == 1:
            tools[_clean(name)] = _served(_clean(name), next(iter(variants.values())))
        else:
            clashes.extend((name, group) for group in variants.values())
    # Prefixed names, from the agent's name; two variants under one agent name (a rolling upgrade that
    # changed a schema) fall back to the agent id, and a name still taken gets a number.
    prefixes = [_clean(f"{group[0].agent_name}_{name}") for name, group in clashes]
    for (name, group), shown in zip(clashes, prefixes, strict=True):
        prefixed = shown if prefixes.count(shown) == 1 else _clean(f"{group[0].agent_id}_{name}")
        unique, n = prefixed, 2
        while unique in tools:
            unique, n = f"{prefixed[: MAX_NAME - 4]}_{n}", n + 1
        tools[unique] = _served(unique, group)
    return [tools[name] for name in sorted(tools)]


def _served(name: str, group: list[Offer]) -> ServedTool:
    first = group[0]
    return ServedTool(
        name=name,
        function_name=first.function_name,
        capability=first.capability,
        description=first.description,
        input_schema=first.input_schema,
        tags=first.tags,
        providers=tuple(group),
    )
