"""JSON views of the registry for `GET /agents` and `GET /health`, in MCP Mesh's field names."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from .resolution import Answer
from .store import AgentState

__all__ = ["agent_view", "health_view", "timestamp"]

SERVICE = "mcp-mesh-registry"


def timestamp(seconds: float | None = None) -> str:
    """RFC 3339 UTC with a `Z`, like MCP Mesh (`2026-11-22T04:11:49.239076Z`)."""
    moment = datetime.now(UTC) if seconds is None else datetime.fromtimestamp(seconds, UTC)
    return moment.isoformat(timespec="microseconds").replace("+00:00", "Z")


def _dependency_resolutions(answer: Answer) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for function_name, slots in answer["dependencies_resolved"].items():
        for slot in slots:
            rows.append(
                {
                    "capability": slot["capability"],
                    "endpoint": slot["endpoint"],
                    "function_name": function_name,
                    "mcp_tool": slot["function_name"],
                    "provider_agent_id": slot["agent_id"],
                    "status": slot["status"],
                }
            )
    return rows


def _llm_tool_resolutions(answer: Answer) -> list[dict[str, Any]]:
    return [
        {
            "function_name": function_name,
            "capability": tool["capability"],
            "mcp_tool": tool["name"],
            "endpoint": tool["endpoint"],
        }
        for function_name, tools in answer["llm_tools"].items()
        for tool in tools
    ]


def _llm_provider_resolutions(answer: Answer) -> list[dict[str, Any]]:
    return [
        {
            "function_name": function_name,
            "capability": provider["capability"],
            "mcp_tool": provider["name"],
            "endpoint": provider["endpoint"],
            "provider_agent_id": provider["agent_id"],
            "status": provider["status"],
        }
        for function_name, provider in answer["llm_providers"].items()
    ]


def agent_view(state: AgentState, *, schemas: bool = False) -> dict[str, Any]:
    """One entry of `GET /agents` (the fields of MCP Mesh's listing, plus `namespace`); with `schemas`
    (`GET /agents?schemas=true`, what `mesh gateway` asks for), each capability's `input_schema` and
    `kwargs` too, so the listing without it stays MCP Mesh's."""
    registration = state.registration
    answer = state.answer or state.sent or {"dependencies_resolved": {}, "llm_tools": {}, "llm_providers": {}}
    dependencies = _dependency_resolutions(answer)
    llm_tools = _llm_tool_resolutions(answer)
    llm_providers = _llm_provider_resolutions(answer)
    view = {
        "a2a_consumer": registration.a2a_consumer,
        "a2a_producer": registration.a2a_producer,
        "agent_type": registration.agent_type,
        "capabilities": [
            {
                "available": state.healthy,
                "description": tool.description,
                "function_name": tool.function_name,
                "name": tool.capability,
                "tags": tool.tag_list,
                "version": tool.version,
                # ours beside MCP Mesh's fields: what `mesh gateway` serves a tool with, no call to the agent
                **({"input_schema": tool.input_schema, "kwargs": tool.kwargs or {}} if schemas else {}),
            }
            for tool in registration.tools
            if tool.capability  # a web route's pseudo-tool provides nothing (MCP Mesh lists it nowhere)
        ],
        "created_at": timestamp(state.created_at),
        "dependencies_resolved": sum(1 for d in dependencies if d["status"] == "available"),
        "dependency_resolutions": dependencies or None,
        "description": registration.description,
        "endpoint": registration.endpoint,
        "id": registration.agent_id,
        "last_seen": timestamp(state.last_seen),
        "llm_provider_resolutions": llm_providers or None,
        "llm_tool_resolutions": llm_tools or None,
        "name": registration.name,
        "namespace": registration.namespace,
        "runtime": registration.runtime,
        "status": "healthy" if state.healthy else "unhealthy",
        "total_dependencies": len(dependencies),
        "version": registration.version,
    }
    project = registration.raw.get("project")  # ours: the agent's app package (mesh/projects.py)
    if isinstance(project, str) and project:
        view["project"] = project[:128]
    return view


def health_view(uptime: float, version: str) -> dict[str, Any]:
    """The `GET /health` body."""
    return {
        "service": SERVICE,
        "status": "healthy",
        "timestamp": timestamp(),
        "uptime_seconds": int(uptime),
        "version": version,
    }
