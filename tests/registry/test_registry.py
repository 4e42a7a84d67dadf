"""The embedded registry in process: MCP Mesh's heartbeat protocol, resolution, health and persistence."""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest

from mesh_framework.registry import RegistryStore, build_registry_app
from mesh_framework.registry import store as store_module
from mesh_framework.registry.resolution import MAX_ALTERNATES

# Payloads captured from the real MCP Mesh 3.7 registry and agents
INTEROP = Path(__file__).resolve().parent.parent / "interop" / "mcp_mesh_captures"

UNRESOLVED_ADD = {
    "agent_id": "",
    "capability": "add",
    "endpoint": "",
    "function_name": "",
    "status": "unresolved",
}


def captured(name: str) -> dict[str, Any]:
    """A payload captured from the real MCP Mesh."""
    data: dict[str, Any] = json.loads((INTEROP / name).read_text())
    return data


class Clock:
    """A monotonic clock the tests move by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def tool(
    function_name: str,
    capability: str | None = None,
    *,
    version: str = "1.0.0",
    tags: list[str] | None = None,
    dependencies: list[Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    data: dict[str, Any] = {
        "function_name": function_name,
        "capability": capability or function_name,
        "version": version,
        "tags": tags or [],
        "description": f"{function_name} tool",
        "inputSchema": {"type": "object", "properties": {}},
        "kwargs": {"function_name": function_name},
    }
    if dependencies:
        data["dependencies"] = dependencies
    data.update(extra)
    return data


def agent(agent_id: str, port: int, *tools: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "name": agent_id.rsplit("-", 1)[0],
        "agent_type": "mcp_agent",
        "runtime": "python",
        "version": "1.0.0",
        "http_host": "127.0.0.1",
        "http_port": port,
        "namespace": "default",
        "tools": list(tools),
        **extra,
    }


ADDER = agent("adder-0001", 9001, tool("add", tags=["math"]))
CALC = agent("calc-0001", 9002, tool("calc", dependencies=[{"capability": "add"}]))
GREETER = agent("greeter-0001", 9003, tool("greet", dependencies=[{"capability": "name"}]))


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(clock: Clock) -> RegistryStore:
    return RegistryStore(timeout=20, clock=clock)


@pytest.fixture
async def client(store: RegistryStore) -> AsyncIterator[httpx2.AsyncClient]:
    app = build_registry_app(store)
    async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://127.0.0.1") as c:
        yield c


async def post(client: httpx2.AsyncClient, payload: dict[str, Any]) -> dict[str, Any]:
    response = await client.post("/heartbeat", json=payload)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert body["status"] == "success"
    return body


async def head(client: httpx2.AsyncClient, agent_id: str) -> int:
    return (await client.head(f"/heartbeat/{agent_id}")).status_code


async def test_provider_then_consumer_resolves(client: httpx2.AsyncClient) -> None:
    provider = await post(client, ADDER)
    assert provider["message"] == "Agent registered via heartbeat"
    assert provider["dependencies_resolved"] == {}
    consumer = await post(client, CALC)
    assert consumer["agent_id"] == "calc-0001"
    assert consumer["dependencies_resolved"] == {
        "calc": [
            {
                "agent_id": "adder-0001",
                "capability": "add",
                "endpoint": "http://127.0.0.1:9001",
                "function_name": "add",
                "kwargs": {"function_name": "add"},
                "status": "available",
                "alternates": [],
            }
        ]
    }
    assert consumer["llm_tools"] == {} and consumer["llm_providers"] == {}


async def test_unresolved_placeholder_has_the_exact_mcp_mesh_shape(client: httpx2.AsyncClient) -> None:
    consumer = await post(client, CALC)
    assert consumer["dependencies_resolved"] == {"calc": [UNRESOLVED_ADD]}


async def test_slots_stay_aligned_with_dependencies(client: httpx2.AsyncClient) -> None:
    await post(client, ADDER)
    deps = [{"capability": "sub"}, {"capability": "add"}, {"capability": "mul"}]
    body = await post(client, agent("multi-0001", 9009, tool("multi", dependencies=deps)))
    slots = body["dependencies_resolved"]["multi"]
    assert [s["status"] for s in slots] == ["unresolved", "available", "unresolved"]
    assert [s["capability"] for s in slots] == ["sub", "add", "mul"]


async def test_or_alternatives_in_one_slot(client: httpx2.AsyncClient) -> None:
    await post(client, ADDER)
    either = [[{"capability": "plus"}, {"capability": "add"}]]
    body = await post(client, agent("alt-0001", 9010, tool("alt", dependencies=either)))
    assert body["dependencies_resolved"]["alt"][0]["agent_id"] == "adder-0001"


async def test_head_202_only_for_affected_consumers(client: httpx2.AsyncClient) -> None:
    await post(client, CALC)
    await post(client, GREETER)
    assert await head(client, "calc-0001") == 200
    await post(client, ADDER)
    assert await head(client, "calc-0001") == 202  # its own answer changed
    assert await head(client, "calc-0001") == 202  # ... until it POSTs again
    assert await head(client, "greeter-0001") == 200  # unrelated: MCP Mesh would say 202
    assert await head(client, "adder-0001") == 200
    body = await post(client, CALC)
    assert body["dependencies_resolved"]["calc"][0]["status"] == "available"
    assert await head(client, "calc-0001") == 200


async def test_provider_change_that_does_not_change_the_answer_is_200(client: httpx2.AsyncClient) -> None:
    await post(client, ADDER)
    await post(client, CALC)
    loser = agent("slow-0001", 9011, tool("add", version="0.1.0"))
    await post(client, loser)  # a worse provider of add: still adder wins, but alternates change
    assert await head(client, "calc-0001") == 202
    await post(client, CALC)
    other = agent("other-0001", 9012, tool("add", tags=["x"]), description="changed later")
    await post(client, other)
    await post(client, CALC)
    await post(client, {**other, "description": "only the description changed"})
    assert await head(client, "calc-0001") == 200


async def test_head_410_for_unknown(client: httpx2.AsyncClient) -> None:
    assert await head(client, "nobody-0000") == 410


async def test_delete_then_consumer_202_then_unresolved(client: httpx2.AsyncClient) -> None:
    await post(client, ADDER)
    await post(client, CALC)
    response = await client.delete("/agents/adder-0001")
    assert response.status_code == 204 and response.content == b""
    assert (await client.delete("/agents/never-seen")).status_code == 204
    assert await head(client, "calc-0001") == 202
    assert await head(client, "adder-0001") == 410
    body = await post(client, CALC)
    assert body["message"] == "Agent updated via heartbeat"
    assert body["dependencies_resolved"] == {"calc": [UNRESOLVED_ADD]}
    revived = await post(client, ADDER)
    assert revived["message"] == "Agent registered via heartbeat"
    assert await head(client, "calc-0001") == 202


async def test_timeout_marks_unhealthy_and_consumers_get_202(
    client: httpx2.AsyncClient, store: RegistryStore, clock: Clock
) -> None:
    await post(client, ADDER)
    await post(client, CALC)
    clock.advance(15)
    assert await head(client, "calc-0001") == 200  # refreshes the consumer only
    clock.advance(10)
    assert store.sweep() == ["adder-0001"]
    assert await head(client, "calc-0001") == 202
    assert await head(client, "adder-0001") == 410  # it must POST again
    body = await post(client, CALC)
    assert body["dependencies_resolved"]["calc"] == [UNRESOLVED_ADD]
    assert (await post(client, ADDER))["message"] == "Agent registered via heartbeat"
    assert await head(client, "calc-0001") == 202


async def test_head_after_timeout_is_410_even_before_a_sweep(
    client: httpx2.AsyncClient, clock: Clock
) -> None:
    await post(client, ADDER)
    clock.advance(21)
    assert await head(client, "adder-0001") == 410


async def test_unhealthy_agents_are_purged_after_a_while(store: RegistryStore, clock: Clock) -> None:
    store.heartbeat(copy.deepcopy(ADDER))
    clock.advance(25)
    store.sweep()
    assert store.get("adder-0001") is not None
    clock.advance(store.purge_after + 1)
    store.sweep()
    assert store.get("adder-0001") is None


async def test_alternates_in_rank_order(client: httpx2.AsyncClient) -> None:
    await post(client, agent("a-0003", 9003, tool("add", version="1.0.0")))
    await post(client, agent("a-0002", 9002, tool("add", version="2.0.0")))
    await post(client, agent("a-0001", 9001, tool("add", version="1.0.0")))
    await post(client, agent("a-0004", 9004, tool("add", version="3.0.0", tags=["slow"])))
    fast = agent("a-0005", 9005, tool("add", version="0.5.0", tags=["fast"]))
    await post(client, fast)
    deps = [{"capability": "add", "tags": ["+fast", "-slow"]}]
    body = await post(client, agent("calc-0009", 9009, tool("calc", dependencies=deps)))
    slot = body["dependencies_resolved"]["calc"][0]
    assert slot["agent_id"] == "a-0005"
    assert slot["alternates"] == [
        {"agent_id": "a-0002", "endpoint": "http://127.0.0.1:9002", "function_name": "add"},
        {"agent_id": "a-0001", "endpoint": "http://127.0.0.1:9001", "function_name": "add"},
        {"agent_id": "a-0003", "endpoint": "http://127.0.0.1:9003", "function_name": "add"},
    ]


async def test_alternates_are_capped(client: httpx2.AsyncClient) -> None:
    for n in range(8):
        await post(client, agent(f"a-{n:04d}", 9100 + n, tool("add")))
    body = await post(client, agent("calc-0009", 9009, tool("calc", dependencies=[{"capability": "add"}])))
    slot = body["dependencies_resolved"]["calc"][0]
    assert len(slot["alternates"]) == MAX_ALTERNATES
    assert slot["agent_id"] not in {a["agent_id"] for a in slot["alternates"]}


async def test_namespaces_are_separate(client: httpx2.AsyncClient) -> None:
    await post(client, {**ADDER, "namespace": "prod"})
    assert (await post(client, CALC))["dependencies_resolved"]["calc"] == [UNRESOLVED_ADD]
    explicit = agent(
        "calc-0002", 9013, tool("calc", dependencies=[{"capability": "add", "namespace": "prod"}])
    )
    assert (await post(client, explicit))["dependencies_resolved"]["calc"][0]["agent_id"] == "adder-0001"


async def test_endpoint_rules(client: httpx2.AsyncClient) -> None:
    await post(client, {**ADDER, "http_host": "0.0.0.0"})
    slot = (await post(client, CALC))["dependencies_resolved"]["calc"][0]
    assert slot["endpoint"] == "http://localhost:9001"
    await post(client, {**ADDER, "http_host": "::1"})
    slot = (await post(client, CALC))["dependencies_resolved"]["calc"][0]
    assert slot["endpoint"] == "http://[::1]:9001"


def _bad(**changes: Any) -> dict[str, Any]:
    payload = copy.deepcopy(CALC)
    for key, value in changes.items():
        if value is ...:
            payload.pop(key)
        else:
            payload[key] = value
    return payload


def _bad_tool(**changes: Any) -> dict[str, Any]:
    payload = copy.deepcopy(CALC)
    for key, value in changes.items():
        if value is ...:
            payload["tools"][0].pop(key)
        else:
            payload["tools"][0][key] = value
    return payload


INVALID: list[tuple[str, Any, str]] = [
    ("missing agent_id", _bad(agent_id=...), "agent_id"),
    ("uppercase agent_id", _bad(agent_id="Calc_1"), "agent_id"),
    ("agent_id not a string", _bad(agent_id=12), "agent_id"),
    ("bad runtime", _bad(runtime="go"), "runtime"),
    ("bad agent_type", _bad(agent_type="robot"), "agent_type"),
    ("port is a string", _bad(http_port="9002"), "http_port"),
    ("port out of range", _bad(http_port=70000), "http_port"),
    ("tools not a list", _bad(tools={"calc": {}}), "tools"),
    ("tool not an object", _bad(tools=["calc"]), "tools[0]"),
    ("missing function_name", _bad_tool(function_name=...), "tools[0].function_name"),
    ("missing capability", _bad_tool(capability=...), "tools[0].capability"),
    ("empty capability", _bad_tool(capability=""), "tools[0].capability"),
    ("tags not a list", _bad_tool(tags="math"), "tools[0].tags"),
    ("nested provider tag", _bad_tool(tags=[["a"]]), "tools[0].tags[0]"),
    ("kwargs not an object", _bad_tool(kwargs=[1]), "tools[0].kwargs"),
    ("dependency without capability", _bad_tool(dependencies=[{"tags": ["x"]}]), "tools[0].dependencies[0]"),
    (
        "bad version constraint",
        _bad_tool(dependencies=[{"capability": "add", "version": ">>1"}]),
        "tools[0].dependencies[0].version",
    ),
    ("bad filter mode", _bad_tool(llm_filter={"filter": [], "filter_mode": "some"}), "tools[0].llm_filter"),
    ("body is a list", [CALC], "must be an object"),
]


@pytest.mark.parametrize(("case", "payload", "field"), INVALID, ids=[c[0] for c in INVALID])
async def test_invalid_payload_is_a_400_naming_the_field(
    client: httpx2.AsyncClient, case: str, payload: Any, field: str
) -> None:
    response = await client.post("/heartbeat", json=payload)
    assert response.status_code == 400
    body = response.json()
    assert body["status"] == "error"
    assert field in body["message"]
    assert body["message"].startswith("validation failed: ")


async def test_non_json_is_a_400(client: httpx2.AsyncClient) -> None:
    response = await client.post(
        "/heartbeat", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400
    assert "not valid JSON" in response.json()["message"]


async def test_identical_refresh_is_neither_revalidated_nor_reresolved(
    client: httpx2.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    await post(client, ADDER)
    first = await post(client, CALC)
    calls: list[Any] = []
    original: Callable[[Any], Any] = store_module.parse_registration
    monkeypatch.setattr(store_module, "parse_registration", lambda body: calls.append(body) or original(body))
    resolves: list[Any] = []
    original_resolve: Callable[..., Any] = store_module.resolve
    monkeypatch.setattr(store_module, "resolve", lambda *a: resolves.append(a) or original_resolve(*a))
    again = await post(client, CALC)
    assert calls == [] and resolves == []
    assert again["dependencies_resolved"] == first["dependencies_resolved"]
    assert again["message"] == "Agent updated via heartbeat"


async def test_consumer_changing_its_dependencies_is_resolved_again(client: httpx2.AsyncClient) -> None:
    await post(client, ADDER)
    await post(client, CALC)
    changed = agent("calc-0001", 9002, tool("calc", dependencies=[{"capability": "add", "tags": ["gpu"]}]))
    assert (await post(client, changed))["dependencies_resolved"]["calc"] == [UNRESOLVED_ADD]


async def test_provider_changing_tags_affects_tag_selecting_consumers(client: httpx2.AsyncClient) -> None:
    await post(client, ADDER)
    picky = agent("picky-0001", 9020, tool("picky", dependencies=[{"capability": "add", "tags": ["math"]}]))
    assert (await post(client, picky))["dependencies_resolved"]["picky"][0]["status"] == "available"
    await post(client, agent("adder-0001", 9001, tool("add", tags=["other"])))
    assert await head(client, "picky-0001") == 202
    assert (await post(client, picky))["dependencies_resolved"]["picky"] == [
        {**UNRESOLVED_ADD, "capability": "add"}
    ]


async def test_get_agents_mirrors_the_captured_listing(client: httpx2.AsyncClient) -> None:
    empty = (await client.get("/agents")).json()
    assert empty["agents"] == [] and empty["count"] == 0 and empty["timestamp"].endswith("Z")
    await post(client, captured("heartbeat_POST_provider_request.json"))
    await post(client, captured("heartbeat_POST_consumer_request.json"))
    listing = (await client.get("/agents")).json()
    reference = captured("registry_GET_agents.json")
    assert listing["count"] == reference["count"] == 2
    ours = {a["id"]: a for a in listing["agents"]}
    for expected in reference["agents"]:
        mine = ours[expected["id"]]
        assert set(expected) <= set(mine), set(expected) - set(mine)
        for key in expected:
            if key not in ("created_at", "last_seen"):
                assert mine[key] == expected[key], key
        assert mine["namespace"] == "default"
    with_schemas = (await client.get("/agents", params={"schemas": "true"})).json()
    provider = next(a for a in with_schemas["agents"] if a["capabilities"])
    assert {"input_schema", "kwargs"} <= set(provider["capabilities"][0])  # what `mesh gateway` serves
    assert "input_schema" not in next(a for a in listing["agents"] if a["capabilities"])["capabilities"][0]


async def test_health_shape(client: httpx2.AsyncClient) -> None:
    response = await client.get("/health")
    body = response.json()
    assert set(body) == {"service", "status", "timestamp", "uptime_seconds", "version"}
    assert body["service"] == "mcp-mesh-registry" and body["status"] == "healthy"
    assert isinstance(body["uptime_seconds"], int)
    assert (await client.head("/health")).status_code == 200


async def test_sqlite_survives_a_restart_without_re_registration(tmp_path: Path, clock: Clock) -> None:
    database = tmp_path / "registry.db"
    first = RegistryStore(database, timeout=20, clock=clock)
    first.heartbeat(copy.deepcopy(ADDER))
    calc_answer = first.heartbeat(copy.deepcopy(CALC)).answer
    first.heartbeat(copy.deepcopy(GREETER))
    first.delete("greeter-0001")
    first.close()

    second = RegistryStore(database, timeout=20, clock=clock)
    assert second.head("calc-0001") == 200  # nothing changed: the agent notices nothing
    assert second.head("adder-0001") == 200
    assert second.head("greeter-0001") == 410  # it was gone before the restart
    assert second.heartbeat(copy.deepcopy(CALC)).answer == calc_answer
    assert [s.agent_id for s in second.agents()] == ["adder-0001", "calc-0001", "greeter-0001"]
    clock.advance(15)
    assert second.head("calc-0001") == 200
    clock.advance(10)
    assert second.sweep() == ["adder-0001"]  # the provider died while the registry was down
    assert second.head("calc-0001") == 202
    second.close()

    third = RegistryStore(database, timeout=20, clock=clock)
    assert third.head("adder-0001") == 410
    assert third.heartbeat(copy.deepcopy(ADDER)).created
    assert third.head("calc-0001") == 200  # it never re-POSTed: it was last told "resolved", as now
    third.close()


LLM_PROVIDER = agent(
    "fakellm-0749b956",
    18085,
    {
        "function_name": "process_chat",
        "capability": "llm",
        "version": "1.0.0",
        "tags": ["fake", "llm"],
        "description": "fake llm",
        "inputSchema": {"type": "object", "properties": {"request": {"type": "object"}}},
        "kwargs": {"task": False, "resume_cursor": False, "function_name": "process_chat"},
    },
)


async def test_llm_tools_and_provider_match_the_captured_exchange(client: httpx2.AsyncClient) -> None:
    adder = captured("heartbeat_POST_provider_request.json")
    adder["http_port"] = 18083
    await post(client, adder)
    await post(client, LLM_PROVIDER)
    streaming = copy.deepcopy(LLM_PROVIDER)
    streaming["agent_id"] = "streamllm-0001"
    streaming["tools"][0]["tags"] = ["fake", "llm", "ai.mcpmesh.stream"]
    await post(client, streaming)  # excluded by "-ai.mcpmesh.stream"
    body = await post(client, captured("heartbeat_POST_llm_consumer_request.json"))
    expected = captured("heartbeat_POST_llm_consumer_response.json")
    assert body["dependencies_resolved"] == expected["dependencies_resolved"] == {}
    assert body["llm_tools"] == expected["llm_tools"]
    provider = dict(body["llm_providers"]["ask"])
    assert provider.pop("alternates") == []
    assert provider == expected["llm_providers"]["ask"]


async def test_llm_filter_modes(client: httpx2.AsyncClient) -> None:
    await post(client, agent("one-0001", 9031, tool("add", tags=["math"]), tool("sub", tags=["math"])))
    await post(client, agent("two-0001", 9032, tool("add2", "add", version="2.0.0", tags=["math"])))
    no_schema = tool("hidden", tags=["math"])
    no_schema.pop("inputSchema")
    await post(client, agent("three-0001", 9033, no_schema))

    async def llm_tools(llm_filter: dict[str, Any]) -> list[str]:
        consumer = agent("asker-0001", 9030, tool("ask", llm_filter=llm_filter), tool("own", tags=["math"]))
        return [t["name"] for t in (await post(client, consumer))["llm_tools"]["ask"]]

    assert await llm_tools({"filter": [{"capability": "add"}], "filter_mode": "all"}) == ["add2", "add"]
    assert await llm_tools({"filter": [{"capability": "add"}], "filter_mode": "best_match"}) == ["add2"]
    assert await llm_tools({"filter": ["sub", {"capability": "add", "version": "<2"}]}) == ["sub", "add"]
    assert sorted(await llm_tools({"filter": [{"tags": ["math"]}]})) == ["add", "add2", "own", "sub"]
    everything_else = ["add", "add2", "sub"]  # mode "*" leaves out the asking agent's own tools
    assert sorted(await llm_tools({"filter": [], "filter_mode": "*"})) == everything_else
    assert await llm_tools({"filter": None}) == []


async def test_llm_consumers_get_202_when_tools_appear(client: httpx2.AsyncClient) -> None:
    wildcard = agent("asker-0001", 9030, tool("ask", llm_filter={"filter": [], "filter_mode": "*"}))
    await post(client, wildcard)
    assert await head(client, "asker-0001") == 200
    await post(client, ADDER)
    assert await head(client, "asker-0001") == 202


async def test_captured_requests_give_the_captured_responses(client: httpx2.AsyncClient) -> None:
    provider_request = captured("heartbeat_POST_provider_request.json")
    consumer_request = captured("heartbeat_POST_consumer_request.json")

    def same_shape(ours: dict[str, Any], theirs: dict[str, Any]) -> None:
        assert set(ours) - set(theirs) <= {"llm_providers"}  # we always send it; MCP Mesh only when used
        assert set(theirs) <= set(ours)
        for key, value in theirs.items():
            if key != "timestamp":
                assert ours[key] == value, key
        assert ours["timestamp"].endswith("Z")

    def without_alternates(body: dict[str, Any]) -> dict[str, Any]:
        body = copy.deepcopy(body)
        for slots in body["dependencies_resolved"].values():
            for slot in slots:
                slot.pop("alternates", None)
        return body

    same_shape(await post(client, provider_request), captured("heartbeat_POST_provider_response.json"))
    resolved = await post(client, consumer_request)
    same_shape(without_alternates(resolved), captured("heartbeat_POST_consumer_response_resolved.json"))
    assert resolved["dependencies_resolved"]["calc"][0]["alternates"] == []
    assert await head(client, consumer_request["agent_id"]) == 200
    assert (await client.delete(f"/agents/{provider_request['agent_id']}")).status_code == 204
    assert await head(client, consumer_request["agent_id"]) == 202
    unresolved = await post(client, consumer_request)
    same_shape(unresolved, captured("heartbeat_POST_consumer_response_unresolved.json"))
