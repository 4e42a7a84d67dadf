"""What the console traces: every call is counted, new traces are kept within a budget a second, a trace is
kept whole or not at all, and the served calls' counters come from the metrics when those count them."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from mesh_framework.console_feed import BUCKET_BOUNDS, TrafficRecorder, percentile
from mesh_framework.metrics.call_counters import CallCounters
from mesh_framework.metrics.mesh_metrics import LATENCY_BUCKETS
from mesh_framework.tracing import spans as span_helpers
from mesh_framework.tracing.carriers import inject_trace
from mesh_framework.tracing.sampling import TraceBudget
from mesh_framework.tracing.state import state as trace_state
from tests.agents import dependency_providers, loopback, run_agent, run_registry, wait_until

pytestmark = pytest.mark.timeout(120)

SAMPLED = "00-" + "a" * 32 + "-" + "b" * 16 + "-01"
UNSAMPLED = "00-" + "c" * 32 + "-" + "d" * 16 + "-00"


@pytest.fixture
def console_spans() -> Iterator[deque[Any]]:
    """The console's span buffer, as an agent that joined a registry has it, with a budget of two."""
    assert trace_state.tracer is None
    buffer: deque[Any] = deque(maxlen=100)
    before = trace_state.budget
    trace_state.spans, trace_state.budget = buffer, TraceBudget(2)
    try:
        yield buffer
    finally:
        trace_state.spans, trace_state.budget = None, before


def _served(headers: list[tuple[bytes, bytes]] | None = None) -> dict[str, str]:
    """One incoming call making one outbound call; the outbound request's headers."""
    sent: dict[str, str] = {}
    raw = headers or []
    with (
        span_helpers.incoming_call("front", 1, {}, raw, trace_headers=bool(raw)),
        span_helpers.outbound_call("middle", "middle"),  # made once the incoming call is entered
    ):
        inject_trace("tools/call", {"arguments": {}}, sent)
    return sent


def test_new_traces_are_kept_within_the_budget_and_the_others_say_so_downstream(
    console_spans: deque[Any],
) -> None:
    first, second, third = _served(), _served(), _served()
    assert len(console_spans) == 4  # two calls kept: a server and a client span each
    assert first["traceparent"].endswith("-01") and second["X-Trace-ID"] != first["X-Trace-ID"]
    assert third == {"X-Mesh-Sampled": "0"}  # no trace ids: other agents see a call without a trace
    assert trace_state.budget.left == 0
    trace_state.budget.refill()  # the push, a second later
    assert "traceparent" in _served() and len(console_spans) == 6


def test_a_call_follows_its_caller_whatever_the_budget(console_spans: deque[Any]) -> None:
    trace_state.budget.left = 0
    sent = _served([(b"traceparent", SAMPLED.encode())])
    assert len(console_spans) == 2 and {s[0] for s in console_spans} == {int("a" * 32, 16)}
    assert sent["traceparent"].startswith("00-" + "a" * 32)
    trace_state.budget.refill()
    for headers in ([(b"x-mesh-sampled", b"0")], [(b"traceparent", UNSAMPLED.encode())]):
        assert _served(headers) == {"X-Mesh-Sampled": "0"}
    assert len(console_spans) == 2 and trace_state.budget.left == 2  # not kept, and no budget spent


def test_a_trace_rate_below_zero_is_refused() -> None:
    with pytest.raises(ValueError, match="zero or more"):
        TraceBudget(-1)


def test_the_recorder_reads_served_calls_from_the_metrics_counters() -> None:
    counters = CallCounters(LATENCY_BUCKETS)
    recorder = TrafficRecorder()
    recorder.follow(counters.tools, counters.bounds)
    recorder.tool_call("ignored", False, 1.0)  # not hooked when following; what it counted is not sent
    for seconds in (0.0004, 0.0004, 0.003):
        counters.tool_call("add", False, seconds)
    counters.tool_call("add", True, 0.2)
    [(tool, calls, errors, seconds, histogram)] = recorder.take()["tools"]
    assert (tool, calls, errors) == ("add", 4, 1) and seconds == pytest.approx(0.2038)
    dense = [0] * (len(BUCKET_BOUNDS) + 1)
    for key, count in histogram.items():
        dense[int(key)] = count
    assert sum(dense) == 4
    assert 0.2 <= percentile(dense, 0.99) <= 0.25 * 1.5  # the slow call's metrics bucket, upper bound
    assert percentile(dense, 0.5) >= 0.0004
    assert recorder.take()["tools"] == []  # nothing gained since
    counters.tool_call("add", False, 0.0004)
    assert [row[:3] for row in recorder.take()["tools"]] == [["add", 1, 0]]
    recorder.enabled = False  # the registry has no console
    counters.tool_call("add", False, 0.0004)
    assert recorder.take()["tools"] == []


def _call(url: str, headers: dict[str, str] | None = None) -> str:
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "front", "arguments": {"text": "x"}},
    }
    return loopback.post(url, json=request, headers=headers, timeout=10).text


def test_real_agents_count_every_call_and_keep_a_trace_whole_or_not_at_all() -> None:
    """A front agent that starts no trace of its own, in front of two that would: the calls are all
    counted, none is traced anywhere (front tells the others), and a caller's sampled trace is kept whole
    across the three."""
    with run_registry(0, "--timeout", "120") as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
        no_budget = {**env, "MESH_TRACING__CONSOLE_TRACES_PER_SECOND": "0"}
        with (
            run_agent("tests.apps.tracing_app.back", env=env),
            run_agent("tests.apps.tracing_app.middle", env=env) as middle,
            run_agent("tests.apps.tracing_app.front", env=no_budget) as front,
        ):
            wait_until(lambda: dependency_providers(middle, "middle", "back") == 1, timeout=30)
            wait_until(lambda: dependency_providers(front, "front", "middle") == 1, timeout=30)
            for _ in range(3):
                assert "front>middle>back" in _call(front.mcp_url)

            def view_with(calls: int) -> dict[str, Any] | None:
                view = loopback.get(registry.base_url + "/ui/console", timeout=5).json()
                counted = {t["tool"]: t["total_calls"] for t in view["tools"]}
                return view if counted == {"front": calls, "middle": calls, "back": calls} else None

            view = wait_until(lambda: view_with(3), timeout=15)
            assert isinstance(view, dict)
            assert view["traces"] == []  # the counters and the spans travel in the same push
            assert "front>middle>back" in _call(front.mcp_url, {"traceparent": SAMPLED})
            view = wait_until(lambda: view_with(4), timeout=15)
            assert isinstance(view, dict)
            [trace] = view["traces"]
            assert trace["trace_id"] == "a" * 32
            spans = trace["spans"]
            assert {s[9] for s in spans} == {"trace-front", "trace-middle", "trace-back"}
            assert sorted(s[3] for s in spans) == ["CLIENT", "CLIENT", "SERVER", "SERVER", "SERVER"]


async def test_a_call_served_before_the_agent_joined_the_mesh_is_traced_in_the_first_push() -> None:
    """An agent serves as soon as it listens and joins the mesh beside it: a call that arrives before the
    join (an in-process agent never joins by itself) is counted and traced, and both reach the console
    once the agent joined."""
    from mesh_framework import MeshApplication
    from mesh_framework.registry import start_registry
    from mesh_framework.testing import mesh_client

    registry = await start_registry("127.0.0.1", 0)
    try:
        app = MeshApplication.load("starter_app.calculator", environ={"MCP_MESH_REGISTRY_URL": registry.url})
        async with mesh_client(app) as client:
            # its dependency is not resolved yet: a failed call, counted and traced as any other
            assert (await client.call_tool("sum_of_squares", {"a": 3, "b": 4}))["isError"]
            joined = asyncio.Event()
            joined.set()
            traffic = app.container.console_traffic()
            traffic.joined(lambda: registry.url, joined)
            assert traffic.push is not None
            for _ in range(250):  # bounded: the push goes once a second
                if traffic.push.pushed:
                    break
                await asyncio.sleep(0.02)
            async with httpx2.AsyncClient(trust_env=False) as http:
                view = (await http.get(registry.url + "/ui/console?since=0")).json()
    finally:
        await registry.stop()
    assert [t["tool"] for t in view["tools"]] == ["sum_of_squares"]
    (trace,) = view["traces"]
    assert [span[2] for span in trace["spans"]] == ["tools/call sum_of_squares"]
