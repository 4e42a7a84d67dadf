"""`mesh_state`: what the mesh page shows, as one JSON document (`GET /ui/state`).

Agents (status, last heartbeat, capabilities), the dependency graph as edges (consumer → provider per
slot, `to` None when unresolved), and the LLM side: each tool's provider selector and tool filter with
what they resolved to. Built from `GET /agents`' views, so the page and `mesh status` read the same facts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..store import RegistryStore
from ..views import agent_view, timestamp

__all__ = ["mesh_state", "state_from_views"]


def _llm_declarations(raw: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Each tool's `llm_filter` and `llm_provider` (or, direct mode, `llm_model`) as the agent declared
    them."""
    filters: list[dict[str, Any]] = []
    providers: list[dict[str, Any]] = []
    tools = raw.get("tools") if isinstance(raw, dict) else None
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict):
            continue
        name = tool.get("function_name")
        if tool.get("llm_filter") is not None:
            filters.append({"tool": name, "filter": tool["llm_filter"]})
        if tool.get("llm_provider") is not None:
            providers.append({"tool": name, "selector": tool["llm_provider"]})
        elif isinstance(tool.get("llm_model"), str):  # direct mode: the tool calls its vendor itself
            providers.append({"tool": name, "model": tool["llm_model"]})
    return filters, providers


def _a2a(view: dict[str, Any], raw: Any) -> dict[str, Any]:
    """The agent's A2A side: skills it serves (its heartbeat's surfaces) and whether it calls A2A agents."""
    surfaces = raw.get("surfaces") if isinstance(raw, dict) else None
    skills = [
        {"id": s.get("skill_id", ""), "path": s.get("path", "")}
        for s in (surfaces if isinstance(surfaces, list) else [])  # payload.py checks it too
        if isinstance(s, dict)
    ]
    return {"skills": skills, "consumer": bool(view.get("a2a_consumer"))}


def mesh_state(store: RegistryStore) -> dict[str, Any]:
    """The page's document: `agents`, `edges`, `llm` and the registry's `timestamp`."""
    return state_from_views((agent_view(state), state.registration.raw) for state in store.agents())


def state_from_views(rows: Iterable[tuple[dict[str, Any], Any]], stamp: str | None = None) -> dict[str, Any]:
    """The page's document from `GET /agents` views, each with the agent's heartbeat payload when it is
    known (None: a remote registry's listing, which carries no LLM declarations)."""
    agents: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    llm: list[dict[str, Any]] = []
    for view, raw in rows:
        agent_id = view["id"]
        agents.append(
            {
                "id": agent_id,
                "name": view.get("name", agent_id),
                "status": view.get("status", "healthy"),
                "endpoint": view.get("endpoint", ""),
                "last_seen": view.get("last_seen"),
                "capabilities": [
                    {
                        "name": c.get("name", ""),
                        "tool": c.get("function_name", ""),
                        "tags": c.get("tags") or [],
                        "version": c.get("version", ""),
                    }
                    for c in view.get("capabilities") or []
                ],
                "dependencies": {
                    "total": view.get("total_dependencies") or 0,
                    "resolved": view.get("dependencies_resolved") or 0,
                },
                "a2a": _a2a(view, raw),
            }
        )
        slots: dict[str, int] = {}  # the dependency index within each tool: what /explain takes
        for row in view.get("dependency_resolutions") or []:
            resolved = row["status"] == "available"
            index = slots[row["function_name"]] = slots.get(row["function_name"], -1) + 1
            edges.append(
                {
                    "from": agent_id,
                    "to": row["provider_agent_id"] if resolved else None,
                    "capability": row["capability"],
                    "tool": row["function_name"],
                    "dep_index": index,
                    "kind": "dependency",
                    "resolved": resolved,
                }
            )
        for row in view.get("llm_provider_resolutions") or []:
            resolved = row["status"] == "available" and bool(row["provider_agent_id"])
            edges.append(
                {
                    "from": agent_id,
                    "to": row["provider_agent_id"] if resolved else None,
                    "capability": row["capability"],
                    "tool": row["function_name"],
                    "kind": "llm_provider",
                    "resolved": resolved,
                }
            )
        filters, providers = _llm_declarations(raw)
        matched: dict[str, list[str]] = {}
        for row in view.get("llm_tool_resolutions") or []:
            matched.setdefault(row["function_name"], []).append(row["mcp_tool"])
        resolved_by = {
            row["function_name"]: row["provider_agent_id"]
            for row in view.get("llm_provider_resolutions") or []
        }
        for entry in filters:
            llm.append(
                {"agent": agent_id, "kind": "filter", **entry, "matches": matched.get(entry["tool"], [])}
            )
        for entry in providers:
            if "model" in entry:
                llm.append({"agent": agent_id, "kind": "direct", **entry})
                continue
            by = resolved_by.get(entry["tool"]) or None
            llm.append({"agent": agent_id, "kind": "provider", **entry, "resolved_by": by})
            if by is None:  # answers leave unresolved LLM providers out (as MCP Mesh does): draw them
                selector = entry["selector"]
                capability = selector.get("capability") if isinstance(selector, dict) else None
                edges.append(
                    {
                        "from": agent_id,
                        "to": None,
                        "capability": str(capability or "llm"),
                        "tool": entry["tool"],
                        "kind": "llm_provider",
                        "resolved": False,
                    }
                )
    return {"timestamp": stamp or timestamp(), "agents": agents, "edges": edges, "llm": llm}
