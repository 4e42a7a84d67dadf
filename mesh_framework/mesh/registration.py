"""The agent as MCP Mesh's registry sees it: the `POST /heartbeat` payload."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..config.settings import MeshSettings
from ..extension import HeartbeatFields
from ..schemas.wire import dependency_schema_fields, tool_schema_fields
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .topology import ToolSlots

__all__ = ["heartbeat_payload", "tool_slots"]


def heartbeat_payload(
    settings: MeshSettings,
    tools: MeshToolWrapperRegistry,
    port: int,
    fields: Sequence[HeartbeatFields] = (),
) -> dict[str, Any]:
    """Agent id, name, runtime, endpoint, namespace and every tool with its dependencies as selectors; then
    the features' fields (`fields`: extension.HeartbeatFields beans)."""
    agent = settings.agent
    namespace = agent.namespace
    entries = []
    for wrapper in tools:
        spec = wrapper.spec
        entry: dict[str, Any] = {
            "function_name": wrapper.name,
            "capability": wrapper.capability,
            "version": spec.version,
            "tags": list(spec.tags),
            "description": wrapper.descriptor["description"],
            "inputSchema": wrapper.descriptor["inputSchema"],
            "kwargs": {"function_name": wrapper.name, **spec.kwargs},
        }
        if "outputSchema" in wrapper.descriptor:
            entry["outputSchema"] = wrapper.descriptor["outputSchema"]
        elif wrapper.signature.streams:  # as MCP Mesh registers a Stream[str] tool
            entry["kwargs"]["stream_type"] = "text"
            entry["outputSchema"] = {"type": "string"}
        llm_config = getattr(wrapper.llm_agent, "config", None)
        if llm_config is not None:
            entry.update(llm_config.heartbeat_fields(namespace))
        if spec.dependencies:
            entry["dependencies"] = [
                {"namespace": namespace, **d.selector.to_wire(), **({"required": True} if d.required else {})}
                for d in spec.dependencies
            ]
        signature = wrapper.signature  # canonical schemas and hashes, as MCP Mesh's registry reads them
        output, streams = signature.output_adapter, signature.streams
        entry.update(tool_schema_fields(entry["inputSchema"], output, streams=streams))
        for wire, dependency in zip(entry.get("dependencies", ()), spec.dependencies, strict=False):
            wire.update(dependency_schema_fields(dependency.selector))
        entries.append(entry)
    payload = {
        "agent_id": agent.id,
        "name": agent.name,
        "agent_type": "mcp_agent",
        "runtime": "python",
        "version": agent.version,
        "description": agent.description[:256],
        "http_host": agent.host,
        "http_port": port,
        "namespace": namespace,
        "status": "healthy",
        "tools": entries,
    }
    for contribution in fields:
        payload.update(contribution.fields(settings, tools))
    return payload


def tool_slots(tools: MeshToolWrapperRegistry) -> dict[str, ToolSlots]:
    """For reading answers: each tool's function name -> its wrapper key and dependency capabilities."""
    return {
        w.name: ToolSlots(w.key, tuple(d.selector.capability for d in w.spec.dependencies))
        for w in tools
        if w.spec.dependencies
    }
