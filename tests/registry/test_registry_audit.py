"""The embedded registry's schema stage and resolution audit (`GET /events`, `GET /explain`), in process."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel
from starlette.testclient import TestClient

from mesh_framework.registry import RegistryStore, build_registry_app
from mesh_framework.registry.audit import AuditLog
from mesh_framework.resolution_audit import stage_rows, summarize
from mesh_framework.schemas import canonical_schema
from tests.agents import loopback, run_mesh


class Caption(BaseModel):
    text: str
    confidence: float


class Labelled(BaseModel):
    label: str
    confidence: float


class Expected(BaseModel):
    text: str


def agent(agent_id: str, tools: list[dict[str, Any]], port: int = 9000) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "name": agent_id.rsplit("-", 1)[0],
        "http_host": "127.0.0.1",
        "http_port": port,
        "tools": tools,
    }


def producer(function_name: str, output: type[BaseModel] | None, **extra: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"function_name": function_name, "capability": "caption", **extra}
    if output is not None:
        schema = canonical_schema(output)
        entry["outputSchemaCanonical"], entry["outputSchemaHash"] = schema.canonical, schema.hash
    return entry


def consumer(mode: str | None = "subset", expected: Any = Expected, **selector: Any) -> dict[str, Any]:
    dependency: dict[str, Any] = {"capability": "caption", **selector}
    if mode is not None:
        schema = canonical_schema(expected)
        dependency |= {
            "expectedSchemaCanonical": schema.canonical,
            "expectedSchemaHash": schema.hash,
            "matchMode": mode,
        }
    return agent(
        "viewer-1", [{"function_name": "show", "capability": "show", "dependencies": [dependency]}], 9009
    )


@pytest.fixture
def registry() -> TestClient:
    store = RegistryStore(audit_history=50)
    return TestClient(build_registry_app(store, sweep=False), base_url="http://127.0.0.1")


def post(client: TestClient, payload: dict[str, Any]) -> dict[str, Any]:
    response = client.post("/heartbeat", json=payload)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def slot(answer: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = answer["dependencies_resolved"]["show"][0]
    return found


def events(client: TestClient, **query: Any) -> list[dict[str, Any]]:
    body = client.get("/events", params=query).json()
    assert body["count"] == len(body["events"])
    found: list[dict[str, Any]] = body["events"]
    return found


def test_the_consumer_wires_only_to_the_provider_with_the_shape_it_expects(registry: TestClient) -> None:
    post(registry, agent("lab-1", [producer("label_it", Labelled)], 9001))
    post(registry, agent("cap-1", [producer("caption_it", Caption)], 9002))
    answer = post(registry, consumer())
    assert slot(answer)["agent_id"] == "cap-1"
    (event,) = events(registry, agent_id="viewer-1", type="dependency_resolved")
    assert event["function_name"] == "show" and event["agent_name"] == "viewer"
    data = event["data"]
    assert data["spec"] == {"capability": "caption", "schema_mode": "subset"}
    assert [s["stage"] for s in data["stages"]] == [
        "health",
        "capability_match",
        "tags",
        "version",
        "schema",
        "tiebreaker",
    ]
    schema_stage = data["stages"][4]
    assert schema_stage["kept"] == ["cap-1:caption_it"]
    (evicted,) = schema_stage["evicted"]
    assert evicted["id"] == "lab-1:label_it" and evicted["reason"] == "SchemaIncompatible"
    assert evicted["details"]["mode"] == "subset"
    assert evicted["details"]["reasons"] == [{"field": "text", "kind": "missing_field", "path": "text"}]
    assert ("schema", "lab-1:label_it", "SchemaIncompatible", "missing text") in stage_rows(data)
    assert stage_rows(data)[-1] == ("tiebreaker", "cap-1:caption_it", "chosen", "HighestScoreThenVersion")
    assert stage_rows(data)[0] == ("health", "lab-1:label_it, cap-1:caption_it", "kept", "")
    assert data["chosen"] == {
        "agent_id": "cap-1",
        "endpoint": "http://127.0.0.1:9002",
        "function_name": "caption_it",
    }


def test_no_matching_shape_leaves_the_slot_unresolved_saying_which_fields_differ(
    registry: TestClient,
) -> None:
    class Wanted(BaseModel):
        label: int
        score: float

    post(registry, agent("lab-1", [producer("label_it", Labelled)], 9001))
    post(registry, agent("cap-1", [producer("caption_it", Caption)], 9002))
    answer = post(registry, consumer(expected=Wanted))
    assert slot(answer)["status"] == "unresolved"
    (event,) = events(registry, type="dependency_unresolved")
    assert "chosen" not in event["data"]
    assert summarize(event["data"]) == (
        "no provider of `caption`, schema subset: 2 evicted by schema (lab-1:label_it: label is string, "
        "expected integer, missing score; cap-1:caption_it: missing label, missing score)"
    )


def test_strict_needs_the_same_hash_and_evicts_producers_without_one(registry: TestClient) -> None:
    post(registry, agent("old-1", [producer("caption_old", None)], 9001))
    post(registry, agent("cap-1", [producer("caption_it", Caption)], 9002))
    post(registry, agent("big-1", [producer("caption_big", Labelled)], 9003))
    answer = post(registry, consumer("strict", Caption))
    assert slot(answer)["agent_id"] == "cap-1"
    (event,) = events(registry, type="dependency_resolved")
    evicted = {e["id"]: e["details"] for e in event["data"]["stages"][4]["evicted"]}
    assert evicted["old-1:caption_old"]["reasons"] == [{"kind": "no_published_hash"}]
    assert "reasons" not in evicted["big-1:caption_big"]  # as MCP Mesh: a strict eviction has no reasons


def test_subset_keeps_a_producer_that_publishes_no_schema(registry: TestClient) -> None:
    post(registry, agent("old-1", [producer("caption_old", None)], 9001))
    assert slot(post(registry, consumer()))["agent_id"] == "old-1"


def test_tag_and_version_evictions_carry_mcp_meshs_reasons(registry: TestClient) -> None:
    post(
        registry, agent("calc-1", [{"function_name": "add", "capability": "caption", "tags": ["slow"]}], 9001)
    )
    post(
        registry,
        agent(
            "calc-2",
            [{"function_name": "add", "capability": "caption", "tags": ["fast", "gpu"], "version": "1.0.0"}],
            9002,
        ),
    )
    answer = post(registry, consumer(None, tags=["fast", "-gpu"]))
    assert slot(answer)["status"] == "unresolved"
    (event,) = events(registry, type="dependency_unresolved")
    assert event["data"]["spec"]["tags"] == ["fast", "-gpu"]
    evicted = {e["id"]: (e["reason"], e["details"]) for e in event["data"]["stages"][2]["evicted"]}
    assert evicted == {
        "calc-1:add": ("MissingTag", {"missing": ["fast"]}),
        "calc-2:add": ("ExtraTagDisallowed", {"disallowed": ["gpu"]}),
    }
    post(registry, consumer(None, version=">=2"))
    newest = events(registry, agent_id="viewer-1", type="dependency_unresolved")[0]
    versions = newest["data"]["stages"][3]["evicted"]
    assert {
        "id": "calc-2:add",
        "reason": "VersionConstraintFailed",
        "details": {"version": "1.0.0", "constraint": ">=2"},
    } in versions


def test_a_single_candidate_records_nothing_and_a_stable_mesh_repeats_nothing(registry: TestClient) -> None:
    post(registry, agent("cap-1", [producer("caption_it", Caption)], 9002))
    post(registry, consumer())
    assert events(registry, type="dependency_resolved") == []  # one forced choice: noise
    post(registry, agent("lab-1", [producer("label_it", Labelled)], 9001))
    post(registry, consumer() | {"version": "1.0.1"})  # re-resolved: two candidates now
    post(registry, consumer() | {"version": "1.0.2"})  # re-resolved the same way: nothing new
    assert len(events(registry, type="dependency_resolved")) == 1


def test_explain_computes_the_trace_now_and_names_what_is_unknown(registry: TestClient) -> None:
    post(registry, agent("cap-1", [producer("caption_it", Caption)], 9002))
    post(registry, consumer())
    body = registry.get(
        "/explain", params={"agent_id": "viewer-1", "function_name": "show", "dep_index": 0}
    ).json()
    assert body["summary"] == "`caption`, schema subset -> cap-1:caption_it (1 candidate)"
    assert body["trace"]["stages"][-1]["chosen"] == "cap-1:caption_it"
    unknown = registry.get("/explain", params={"agent_id": "nobody-1", "function_name": "show"})
    assert unknown.status_code == 404 and "no agent 'nobody-1'" in unknown.json()["message"]
    wrong = registry.get("/explain", params={"agent_id": "viewer-1", "function_name": "show", "dep_index": 3})
    assert wrong.status_code == 404 and "tools with dependencies: show" in wrong.json()["message"]
    for index in ("x", "²", "-1"):
        bad = registry.get(
            "/explain", params={"agent_id": "viewer-1", "function_name": "show", "dep_index": index}
        )
        assert bad.status_code == 400, index


def test_events_filters_and_limits_and_refuses_a_bad_limit(registry: TestClient) -> None:
    post(registry, agent("cap-1", [producer("caption_it", Caption)], 9002))
    assert [e["event_type"] for e in events(registry, agent_id="cap-1")] == ["register"]
    assert events(registry, agent_id="nobody-1") == []
    assert len(events(registry, limit=0)) == 1  # clamped to 1, as MCP Mesh
    response = registry.get("/events", params={"limit": "ten"})
    assert response.status_code == 400 and "limit must be an integer" in response.json()["message"]


def test_the_history_keeps_the_newest_events_up_to_its_bound() -> None:
    store = RegistryStore(audit_history=3)
    client = TestClient(build_registry_app(store, sweep=False), base_url="http://127.0.0.1")
    for n in range(5):
        post(client, agent(f"cap-{n}", [producer("caption_it", Caption)], 9000 + n))
    assert [e["agent_id"] for e in events(client)] == ["cap-4", "cap-3", "cap-2"]
    with pytest.raises(ValueError, match="at least one event"):
        AuditLog(0)


def test_a_bad_schema_field_is_refused_naming_it(registry: TestClient) -> None:
    bad = agent("cap-1", [producer("caption_it", Caption) | {"outputSchemaCanonical": "{not json"}])
    response = registry.post("/heartbeat", json=bad)
    assert response.status_code == 400
    assert response.json()["field"] == "tools[0].outputSchemaCanonical"


def test_mesh_registry_keeps_the_history_the_setting_says() -> None:
    with run_mesh(["registry", "--port", "0"], env={"MESH_REGISTRY__AUDIT_HISTORY": "2"}) as registry:
        for n in range(4):
            body = agent(f"cap-{n}", [producer("caption_it", Caption)], 9000 + n)
            assert loopback.post(registry.base_url + "/heartbeat", json=body, timeout=5).status_code == 200
        found = loopback.get(registry.base_url + "/events", timeout=5).json()
    assert [e["agent_id"] for e in found["events"]] == ["cap-3", "cap-2"]


def test_a_schema_nested_too_deep_is_refused_naming_it(registry: TestClient) -> None:
    """Deeper than a schema may be (64 levels) yet within what a heartbeat may hold (100 levels of JSON;
    deeper is refused whole, before it is parsed: tests/registry/test_registry_inputs.py)."""
    deep: dict[str, Any] = {"type": "object"}
    for _ in range(40):
        deep = {"type": "object", "required": ["x"], "properties": {"x": deep}}
    payload = consumer()
    payload["tools"][0]["dependencies"][0]["expectedSchemaCanonical"] = deep
    response = registry.post("/heartbeat", json=payload)
    assert response.status_code == 400
    assert response.json()["field"] == "tools[0].dependencies[0].expectedSchemaCanonical"
    assert "nested deeper than 64 levels" in response.json()["message"]


def test_lifecycle_events_name_registrations_stops_and_health_changes(registry: TestClient) -> None:
    """What the console's event sidebar shows: an agent that registers, one that stops (unregisters)
    and one whose health says DOWN, newest first."""
    post(registry, agent("cap-1", [producer("caption_it", Caption)], 9002))
    post(registry, agent("lab-1", [producer("label_it", Labelled)], 9001))
    assert registry.delete("/agents/lab-1").status_code in (200, 204)
    post(registry, {**agent("cap-1", [producer("caption_it", Caption)], 9002), "status": "unhealthy"})
    lifecycle = [
        (e["event_type"], e["agent_id"])
        for e in events(registry)
        if e["event_type"] in ("register", "unregister", "unhealthy")
    ]
    assert lifecycle == [
        ("unhealthy", "cap-1"),
        ("unregister", "lab-1"),
        ("register", "lab-1"),
        ("register", "cap-1"),
    ]
    post(registry, agent("cap-1", [producer("caption_it", Caption)], 9002))  # healthy again
    assert (events(registry)[0]["event_type"], events(registry)[0]["agent_id"]) == ("register", "cap-1")
