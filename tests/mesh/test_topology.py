"""Registry answers into topologies, topology diffs into events, events into slots and cached proxies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mesh_framework import MeshSettings, MeshToolWrapperRegistry
from mesh_framework.mesh.dispatcher import TopologyDispatcher
from mesh_framework.mesh.proxy import InProcessMcpMeshTool, McpMeshToolProxy, Provider
from mesh_framework.mesh.proxy_factory import McpMeshToolProxyFactory
from mesh_framework.mesh.topology import Resolution, ToolSlots, Topology, diff_topology, parse_answer
from tests.server.test_wrapper import calc, wrap

INTEROP = (
    Path(__file__).resolve().parent.parent / "interop" / "mcp_mesh_captures"
)  # captured from MCP Mesh 3.7
SLOTS = {"calc": ToolSlots("tests.calc", ("add", "add"))}


def entry(agent: str, port: int, **extra: Any) -> dict[str, Any]:
    return {
        "agent_id": agent,
        "capability": "add",
        "endpoint": f"http://127.0.0.1:{port}",
        "function_name": "add",
        "kwargs": {},
        "status": "available",
        **extra,
    }


UNRESOLVED = {
    "agent_id": "",
    "capability": "add",
    "endpoint": "",
    "function_name": "",
    "status": "unresolved",
}


def test_captured_mcp_mesh_answers_parse() -> None:
    resolved = json.loads((INTEROP / "heartbeat_POST_consumer_response_resolved.json").read_text())
    topology = parse_answer(resolved, {"calc": ToolSlots("app.calc", ("add",))})
    assert topology.dependencies == {
        "app.calc:dep_0": Resolution("add", Provider("adder-6aba7530", "http://127.0.0.1:18081", "add"))
    }
    unresolved = json.loads((INTEROP / "heartbeat_POST_consumer_response_unresolved.json").read_text())
    assert parse_answer(unresolved, {"calc": ToolSlots("app.calc", ("add",))}).dependencies == {
        "app.calc:dep_0": None
    }


def test_diff_events() -> None:
    a = parse_answer({"dependencies_resolved": {"calc": [entry("p1-00000001", 1), UNRESOLVED]}}, SLOTS)
    b = parse_answer(
        {"dependencies_resolved": {"calc": [entry("p2-00000002", 2), entry("p1-00000001", 1)]}}, SLOTS
    )
    c = parse_answer({"dependencies_resolved": {"calc": [UNRESOLVED, entry("p1-00000001", 1)]}}, SLOTS)
    assert [(e.kind, e.key) for e in diff_topology(Topology(), a)] == [
        ("dependency_available", "tests.calc:dep_0")
    ]
    assert [(e.kind, e.key) for e in diff_topology(a, b)] == [
        ("dependency_changed", "tests.calc:dep_0"),
        ("dependency_available", "tests.calc:dep_1"),
    ]
    assert [(e.kind, e.key) for e in diff_topology(b, c)] == [("dependency_unavailable", "tests.calc:dep_0")]
    assert diff_topology(c, c) == []


def test_llm_events() -> None:
    old = Topology(llm_tools={"chat": [{"name": "a"}]}, llm_providers={"chat": {"agent_id": "x"}})
    new = Topology(llm_tools={"chat": [{"name": "a"}, {"name": "b"}]}, llm_providers={})
    kinds = [(e.kind, e.key) for e in diff_topology(old, new)]
    assert kinds == [("llm_tools_updated", "chat"), ("llm_provider_unavailable", "chat")]


def test_dispatcher_fills_slots_caches_and_invalidates_proxies() -> None:
    registry = wrap(calc)
    settings = MeshSettings(agent={"id": "me-00000000"})  # type: ignore[arg-type]
    factory = McpMeshToolProxyFactory(settings)
    dispatcher = TopologyDispatcher(registry, factory)
    wrapper = registry.get("calc")
    assert wrapper is not None
    dispatcher.apply(
        parse_answer(
            {"dependencies_resolved": {"calc": [entry("p1-00000001", 1), entry("p1-00000001", 1)]}}, SLOTS
        )
    )
    first, second = wrapper.slots
    assert isinstance(first, McpMeshToolProxy) and first is second  # cached by (endpoint, function name)
    assert set(factory.cached()) == {("http://127.0.0.1:1", "add")}
    alternates = [{"agent_id": "p2-00000002", "endpoint": "http://127.0.0.1:2", "function_name": "add"}]
    dispatcher.apply(
        parse_answer(
            {
                "dependencies_resolved": {
                    "calc": [entry("p2-00000002", 2), entry("p1-00000001", 1, alternates=alternates)]
                }
            },
            SLOTS,
        )
    )
    assert wrapper.slots[0] is not first and wrapper.slots[1] is first
    assert first.alternates == (Provider("p2-00000002", "http://127.0.0.1:2", "add"),)
    dispatcher.apply(
        parse_answer({"dependencies_resolved": {"calc": [entry("p2-00000002", 2), UNRESOLVED]}}, SLOTS)
    )
    assert wrapper.slots[1] is None
    assert set(factory.cached()) == {("http://127.0.0.1:2", "add")}  # the dropped provider's proxy is gone


async def test_a_dependency_served_by_this_agent_is_called_in_process() -> None:
    from tests.server.test_wrapper import sync_tool

    registry: MeshToolWrapperRegistry = wrap(calc, sync_tool)
    settings = MeshSettings(agent={"id": "me-00000000"})  # type: ignore[arg-type]
    factory = McpMeshToolProxyFactory(settings)
    factory.local_registry = registry
    proxy = factory.proxy_for("sync", Provider("me-00000000", "http://127.0.0.1:9", "sync_tool"))
    assert isinstance(proxy, InProcessMcpMeshTool)
    assert isinstance(await proxy(n=1), str)  # no server listens on port 9: this went through the wrapper
    assert factory._http is None  # and no HTTP client was even created
