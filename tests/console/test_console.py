"""The console's data path without a browser: the registry's board and routes (a real registry app through
Starlette's TestClient, and real `mesh run` agents, which share one registry process), the agent's counters
and its light spans."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesh_framework.console_feed import BUCKET_BOUNDS, TrafficRecorder, percentile
from mesh_framework.registry.console import ConsoleBoard
from mesh_framework.registry.registry_app import build_registry_app
from mesh_framework.registry.store import RegistryStore
from mesh_framework.tracing import spans as span_helpers
from mesh_framework.tracing.carriers import inject_trace
from mesh_framework.tracing.state import state as trace_state
from tests.agents import AgentProcess, dependency_providers, loopback, run_agent, run_registry, wait_until
from tests.page_token import page_headers

pytestmark = pytest.mark.timeout(120)


def _span(trace: str, span: str, parent: str = "", name: str = "tools/call x") -> list[Any]:
    return [trace, span, parent, name, "SERVER", "agent", 1_000_000.0, 0.001, ""]


def test_the_recorder_counts_calls_errors_and_latency_buckets() -> None:
    recorder = TrafficRecorder()
    for seconds in (0.001, 0.002, 0.5):
        recorder.tool_call("add", False, seconds)
    recorder.tool_call("add", True, 0.003)
    recorder.proxy_call("add", "http://127.0.0.1:1", "unreachable", 0.01)
    recorder.llm_usage("ask", type("U", (), {"model": "gpt", "input_tokens": 7, "output_tokens": 3})())
    taken = recorder.take()
    tool, calls, errors, seconds, histogram = taken["tools"][0]
    assert (tool, calls, errors) == ("add", 4, 1)
    assert seconds == pytest.approx(0.506)
    assert sum(histogram.values()) == 4
    assert taken["edges"][0][:4] == ["add", "http://127.0.0.1:1", 1, 1]
    assert taken["tokens"] == [["gpt", "ask", 7, 3, 1]]
    assert recorder.take() == {"tools": [], "edges": [], "tokens": []}  # handed over: new counters
    dense = [0] * (len(BUCKET_BOUNDS) + 1)
    for key, count in histogram.items():
        dense[int(key)] = count
    assert percentile(dense, 0.99) >= 0.5  # the slow call is the p99


def test_light_spans_chain_without_opentelemetry() -> None:
    """With only the console on, an incoming call's span continues the caller's trace, an outbound call
    inside it is its child, and the outbound request carries the ids (OpenTelemetry is not used)."""
    assert trace_state.tracer is None
    buffer: deque[Any] = deque(maxlen=10)
    trace_state.spans = buffer
    try:
        caller = "00-" + "a" * 32 + "-" + "b" * 16 + "-01"
        params = {"_meta": {"traceparent": caller}}
        with (
            span_helpers.incoming_call("front", 1, params, []),
            span_helpers.outbound_call("middle", "middle") as outbound,
        ):
            outbound.result({"isError": True, "content": [{"type": "text", "text": "no"}]})
            sent: dict[str, Any] = {"arguments": {}}
            headers: dict[str, str] = {}
            inject_trace("tools/call", sent, headers)
    finally:
        trace_state.spans = None
    outbound_span, incoming_span = buffer
    assert incoming_span[0] == int("a" * 32, 16) and incoming_span[2] == int("b" * 16, 16)
    assert outbound_span[0] == incoming_span[0] and outbound_span[2] == incoming_span[1]
    assert outbound_span[8] == "no"  # an isError result marks the span failed
    assert headers["traceparent"] == f"00-{'a' * 32}-{outbound_span[1]:016x}-01"
    assert sent["arguments"]["_trace_id"] == "a" * 32


def test_the_board_keeps_at_most_max_traces_and_stays_fast() -> None:
    board = ConsoleBoard(max_traces=1000)
    for batch in range(100):  # 10,000 traces of two spans, pushed 100 at a time
        spans = []
        for i in range(100):
            trace = f"{batch * 100 + i + 1:032x}"
            spans += [_span(trace, "1" * 16), _span(trace, "2" * 16, "1" * 16)]
        board.ingest({"agent_id": "a-1", "spans": spans}, lambda _e: "")
    assert len(board.traces) == 1000
    assert board.evicted_traces == 9000
    view = board.view(0, str, limit=100)
    assert len(view["traces"]) == 100 and view["retained_traces"] == 1000
    assert view["traces"][0]["trace_id"] == f"{10_000:032x}"  # newest first
    assert board.view(view["seq"], str)["traces"] == []  # nothing new since


def test_a_malformed_push_is_refused_naming_the_field() -> None:
    app = build_registry_app(RegistryStore(), sweep=False)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        bad = {"agent_id": "a-1", "tools": [["add", -1, 0, 0.1, {}]]}
        response = client.post("/console/push", json=bad)
        assert response.status_code == 400
        assert response.json()["field"] == "tools[0][1]"
        assert "non-negative integer" in response.json()["message"]
        assert (
            client.post(
                "/console/push", content=b"{", headers={"content-type": "application/json"}
            ).status_code
            == 400
        )
        assert client.get("/ui/console?since=x").status_code == 400
        good = {"agent_id": "a-1", "tools": [["add", 3, 1, 0.3, {"5": 3}]], "spans": []}
        assert client.post("/console/push", json=good).status_code == 204
        tools = client.get("/ui/console").json()["tools"]
        assert [(t["tool"], t["calls"], t["errors"], t["error_rate"]) for t in tools] == [
            ("add", 3, 1, 0.3333)
        ]


def test_a_call_from_the_console_to_an_unknown_agent_or_with_bad_arguments_is_refused() -> None:
    app = build_registry_app(RegistryStore(), sweep=False)
    with TestClient(app, base_url="http://127.0.0.1", client=("127.0.0.1", 5000)) as client:
        page = page_headers(client)  # the page's CSRF token: without it every call is refused (403)
        body = {"agent_id": "nobody-1", "tool": "add", "arguments": {}}
        response = client.post("/ui/call", json=body, headers=page)
        assert response.status_code == 404 and "nobody-1" in response.json()["message"]
        body = {"agent_id": "x", "tool": "add", "arguments": [1]}
        response = client.post("/ui/call", json=body, headers=page)
        assert response.status_code == 400 and response.json()["field"] == "arguments"
    with TestClient(
        app, base_url="http://127.0.0.1", client=("10.1.2.3", 5000)
    ) as remote:  # not loopback, and no token: refused
        response = remote.post("/ui/call", json={"agent_id": "x", "tool": "add", "arguments": {}})
        assert response.status_code == 403


def _call(url: str, tool: str, arguments: dict[str, Any]) -> str:
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    response = loopback.post(url, json=request, timeout=10)
    return response.text


@pytest.fixture(scope="module")
def registry() -> Iterator[AgentProcess]:
    """One registry for the tests with real agents: only the traffic test calls a tool."""
    with run_registry(0, "--timeout", "120") as running:
        yield running


def test_traffic_and_one_trace_across_three_real_agents(registry: AgentProcess) -> None:
    env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
    with (
        run_agent("tests.apps.tracing_app.back", env=env),
        run_agent("tests.apps.tracing_app.middle", env=env) as middle,
        run_agent("tests.apps.tracing_app.front", env=env) as front,
    ):
        # no call before both slots hold their provider, so every call made is one that succeeds
        wait_until(lambda: dependency_providers(middle, "middle", "back") == 1, timeout=30)
        wait_until(lambda: dependency_providers(front, "front", "middle") == 1, timeout=30)
        for i in range(7):
            assert f"front>middle>back:{i}" in _call(front.mcp_url, "front", {"text": str(i)})

        def seven_each() -> dict[str, Any] | None:
            view = loopback.get(registry.base_url + "/ui/console", timeout=5).json()
            calls = {t["tool"]: t["total_calls"] for t in view["tools"]}
            return view if calls == {"front": 7, "middle": 7, "back": 7} else None

        view = wait_until(seven_each, timeout=15)
        assert isinstance(view, dict)
        edges = {(e["from_name"], e["capability"], e["to_name"]): e["total_calls"] for e in view["edges"]}
        assert edges == {
            ("trace-front", "middle", "trace-middle"): 7,
            ("trace-middle", "back", "trace-back"): 7,
        }
        assert view["totals"]["calls"] == 21 and view["totals"]["errors"] == 0
        trace = view["traces"][0]
        spans = trace["spans"]
        assert {s[9] for s in spans} == {"trace-front", "trace-middle", "trace-back"}
        assert sorted(s[3] for s in spans) == ["CLIENT", "CLIENT", "SERVER", "SERVER", "SERVER"]
        roots = [s for s in spans if not s[1]]
        assert len(roots) == 1 and roots[0][2] == "tools/call front"
        ids = {s[0] for s in spans}
        assert all(s[1] in ids for s in spans if s[1])  # one tree: every parent is in the trace
        json.dumps(view)


def test_a_direct_mode_llm_tool_is_listed_with_its_model(registry: AgentProcess) -> None:
    """The starter's `ask` calls its vendor itself: the page lists it with the model, not 'no LLM tools'."""
    url = registry.base_url

    def ask_entry() -> dict[str, Any] | None:
        state = loopback.get(url + "/ui/state", timeout=5).json()
        return next((e for e in state["llm"] if e["tool"] == "ask"), None)

    with run_agent("starter_app", env={"MCP_MESH_REGISTRY_URL": url}):
        entry = wait_until(ask_entry, timeout=30)
        assert isinstance(entry, dict)
        assert entry == {
            "agent": entry["agent"],
            "kind": "direct",
            "tool": "ask",
            "model": "openai/gpt-4o-mini",
        }


def test_with_opentelemetry_on_the_console_records_the_spans_the_collector_gets() -> None:
    """`tracing.enabled`: the spans still go to the OpenTelemetry exporter, and the console's records carry
    the same trace and span ids."""
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from mesh_framework.config.settings import TracingSettings
    from mesh_framework.tracing import configure_tracing, tracer_provider

    assert configure_tracing(TracingSettings(enabled=True, exporter="none"), agent="otel-agent")
    exporter = InMemorySpanExporter()
    tracer_provider().add_span_processor(SimpleSpanProcessor(exporter))
    buffer: deque[Any] = deque(maxlen=10)
    trace_state.spans = buffer
    try:
        with (
            span_helpers.incoming_call("front", 1, {}, []),
            span_helpers.outbound_call("middle", "middle"),
        ):
            pass
    finally:
        trace_state.spans = None
        trace_state.tracer = trace_state.provider = None
    exported = {
        (s.context.trace_id, s.context.span_id, s.parent.span_id if s.parent else 0)
        for s in exporter.get_finished_spans()
    }
    recorded = {(s[0], s[1], s[2]) for s in buffer}
    assert len(exported) == 2 and recorded == exported


def test_the_board_holds_at_most_max_total_spans() -> None:
    from mesh_framework.registry.console.board import MAX_SPANS, MAX_TOTAL_SPANS

    board = ConsoleBoard()
    for t in range(MAX_TOTAL_SPANS // 100):  # 500 traces of 300 spans: 150,000 spans pushed
        spans = [_span(f"{t + 1:032x}", f"{i + 1:016x}") for i in range(300)]
        board.ingest({"agent_id": "a-1", "spans": spans}, lambda _e: "")
    assert board.spans <= MAX_TOTAL_SPANS
    assert board.spans == sum(len(t.spans) for t in board.traces.values())
    assert all(len(t.spans) == MAX_SPANS and t.dropped == 300 - MAX_SPANS for t in board.traces.values())
