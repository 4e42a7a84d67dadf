"""`/metrics`: Prometheus text of an agent's instruments, in process; concurrent scrapes; bounded labels."""

from __future__ import annotations

import asyncio

import httpx2
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from mesh_framework import LlmModel, MeshApplication
from mesh_framework.mesh.registration import heartbeat_payload, tool_slots
from mesh_framework.mesh.topology import parse_answer
from mesh_framework.metrics import BoundedLabel, MeshMetrics
from mesh_framework.registry import RegistryStore, start_registry
from mesh_framework.testing import ScriptedLlm, mesh_client
from tests.registry.test_registry import ADDER, CALC, agent, tool


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a scrape by (name, sorted labels); parsing fails on malformed text."""
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


async def test_tool_calls_errors_and_latency_per_tool() -> None:
    app = MeshApplication.load("starter_app", environ={})
    async with mesh_client(app) as client:
        for i in range(3):
            assert await client.call_ok("add", {"a": i, "b": 1}) == i + 1
        bad = await client.call_tool("add", {"a": "not a number", "b": 1})
        assert bad["isError"] is True
        response = await client.http.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    got = samples(response.text)
    assert got[("mesh_tool_calls_total", (("tool", "add"),))] == 4
    assert got[("mesh_tool_errors_total", (("tool", "add"),))] == 1
    assert got[("mesh_tool_call_duration_seconds_count", (("tool", "add"),))] == 4
    assert got[("mesh_health_status", (("status", "UP"),))] == 1
    assert got[("mesh_health_status", (("status", "DOWN"),))] == 0
    # nothing about arguments or ids in any label
    assert "not a number" not in response.text and app.settings.agent.id not in response.text


async def test_an_unresolved_dependency_reads_zero() -> None:
    app = MeshApplication.load("starter_app.calculator", environ={})
    async with mesh_client(app) as client:
        got = samples((await client.http.get("/metrics")).text)
    assert got[("mesh_dependency_resolved", (("capability", "add"), ("tool", "sum_of_squares")))] == 0
    assert got[("mesh_dependency_providers", (("capability", "add"), ("tool", "sum_of_squares")))] == 0


async def test_a_slot_counts_its_provider_and_alternates() -> None:
    """Two agents serve `add`: the calculator's slot calls one and can fail over to the other."""
    app = MeshApplication.load("starter_app.calculator", environ={})
    async with mesh_client(app) as client:
        tools = app.container.tools()
        store = RegistryStore(timeout=60)
        store.heartbeat(heartbeat_payload(app.settings, tools, 9100))
        store.heartbeat(ADDER)
        store.heartbeat(agent("adder-0002", 9003, tool("add")))
        answer = store.current_answer(app.settings.agent.id)
        assert answer is not None
        app.container.mesh_runtime().dispatcher.apply(parse_answer(answer, tool_slots(tools)))
        got = samples((await client.http.get("/metrics")).text)
    labels = (("capability", "add"), ("tool", "sum_of_squares"))
    assert got[("mesh_dependency_resolved", labels)] == 1
    assert got[("mesh_dependency_providers", labels)] == 2


async def test_concurrent_scrapes_during_calls_all_parse_and_agree() -> None:
    app = MeshApplication.load("starter_app", environ={})
    async with mesh_client(app) as client:
        calls = [client.call_ok("add", {"a": i, "b": i}) for i in range(40)]
        scrapes = [client.http.get("/metrics") for _ in range(40)]
        results = await asyncio.gather(*calls, *scrapes)
        final = samples((await client.http.get("/metrics")).text)
    answers, responses = results[:40], results[40:]
    assert answers == [2 * i for i in range(40)]
    counts = []
    for response in responses:
        assert response.status_code == 200
        counts.append(samples(response.text).get(("mesh_tool_calls_total", (("tool", "add"),)), 0.0))
    assert all(0 <= c <= 40 for c in counts)
    assert final[("mesh_tool_calls_total", (("tool", "add"),))] == 40


async def test_openmetrics_on_request_and_off_by_setting() -> None:
    app = MeshApplication.load("starter_app", environ={})
    async with mesh_client(app) as client:
        response = await client.http.get("/metrics", headers={"Accept": "application/openmetrics-text"})
    assert response.headers["content-type"].startswith("application/openmetrics-text")
    assert response.text.endswith("# EOF\n")
    app = MeshApplication.load("starter_app", environ={"MESH_METRICS__ENABLED": "false"})
    async with mesh_client(app) as client:
        assert (await client.http.get("/metrics")).status_code == 404


async def test_llm_tokens_per_tool() -> None:
    app = MeshApplication.load("tests.apps.llm_app", environ={})
    model = ScriptedLlm([ScriptedLlm.call("multiply", a=6, b=7), "6 times 7 is 42"])
    with app.override(LlmModel, model):
        async with mesh_client(app) as client:
            await client.call_tool("ask", {"question": "6 x 7?"})
            got = samples((await client.http.get("/metrics")).text)
    assert got[("mesh_llm_requests_total", (("tool", "ask"),))] == 1
    assert got[("mesh_llm_tokens_total", (("kind", "input"), ("tool", "ask")))] > 0
    assert got[("mesh_llm_tokens_total", (("kind", "output"), ("tool", "ask")))] > 0


def test_endpoint_labels_are_bounded() -> None:
    bounded = BoundedLabel(2)
    assert [bounded(v) for v in ("a", "b", "c", "a", "d")] == ["a", "b", "other", "a", "other"]
    metrics = MeshMetrics()
    for port in range(100):
        metrics.proxy_call("add", f"http://10.0.0.1:{port}", "ok", 0.001)
    metrics.proxy_failover("add", "http://10.0.0.1:0")
    got = samples(generate_latest(metrics.registry).decode())
    endpoints = {dict(k[1])["endpoint"] for k in got if k[0] == "mesh_proxy_calls_total"}
    assert len(endpoints) == 33 and "other" in endpoints  # MAX_ENDPOINTS + other
    assert (
        got[("mesh_proxy_failovers_total", (("capability", "add"), ("endpoint", "http://10.0.0.1:0")))] == 1
    )


async def test_the_registry_serves_agents_and_dependency_slots() -> None:
    registry = await start_registry("127.0.0.1", 0)
    try:
        async with httpx2.AsyncClient(base_url=registry.url, trust_env=False, timeout=5) as http:
            assert (await http.post("/heartbeat", json=CALC)).status_code == 200  # add is not served yet
            before = samples((await http.get("/metrics")).text)
            assert (await http.post("/heartbeat", json=ADDER)).status_code == 200
            await http.post("/heartbeat", json=CALC)
            after = samples((await http.get("/metrics")).text)
            await http.delete("/agents/adder-0001")
            gone = samples((await http.get("/metrics")).text)
    finally:
        await registry.stop()
    assert before[("mesh_registry_dependencies", (("state", "unresolved"),))] == 1
    assert after[("mesh_registry_dependencies", (("state", "resolved"),))] == 1
    assert after[("mesh_registry_agents", (("status", "healthy"),))] == 2
    assert after[("mesh_registry_capability_providers", (("capability", "add"),))] == 1
    assert gone[("mesh_registry_agents", (("status", "unhealthy"),))] == 1
    assert gone[("mesh_registry_dependencies", (("state", "unresolved"),))] == 1
