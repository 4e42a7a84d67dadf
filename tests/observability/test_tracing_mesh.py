"""One request through three agents (separate processes, embedded registry) is one trace: each agent
writes its spans as JSON lines (`tracing.exporter: file`) and the test rebuilds the tree from them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.agents import AgentProcess, loopback, run_agent, run_registry, wait_until
from tests.mesh.test_mesh_integration import call

TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


@pytest.fixture
def registry() -> Iterator[AgentProcess]:
    with run_registry(0) as running:
        yield running


def traced_env(registry: AgentProcess, spans: Path, **extra: str) -> dict[str, str]:
    return {
        "MCP_MESH_REGISTRY_URL": registry.base_url,
        "MCP_MESH_HEALTH_INTERVAL": "0.5",
        "MESH_TRACING__ENABLED": "true",
        "MESH_TRACING__EXPORTER": "file",
        "MESH_TRACING__FILE": str(spans),
        **extra,
    }


@contextmanager
def started_together(*processes: AbstractContextManager[Any]) -> Iterator[list[Any]]:
    """Enter several process context managers at once (each waits for its own start), exit them all."""
    with ExitStack() as stack, ThreadPoolExecutor(len(processes)) as pool:
        futures = [pool.submit(p.__enter__) for p in processes]
        entered, failure = [], None
        for process, future in zip(processes, futures, strict=True):
            try:
                entered.append(future.result())
                stack.push(process.__exit__)
            except Exception as exc:  # the others that started are still stopped
                failure = failure or exc
        if failure is not None:
            raise failure
        yield entered


def read_spans(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_one_request_through_three_agents_is_one_trace(registry: AgentProcess, tmp_path: Path) -> None:
    files = {name: tmp_path / f"{name}.jsonl" for name in ("front", "middle", "back")}
    with started_together(
        run_agent("tests.apps.tracing_app.back", env=traced_env(registry, files["back"]), timeout=60),
        run_agent("tests.apps.tracing_app.middle", env=traced_env(registry, files["middle"]), timeout=60),
        run_agent(
            "tests.apps.tracing_app.front",
            env=traced_env(registry, files["front"], MESH_LOGGING__FORMAT="json"),
            timeout=60,
        ),
    ) as (back, _middle, front):
        ready = wait_until(lambda: not (r := call(front, "front", {"text": "warm-up"}))["isError"] and r, 15)
        assert ready
        for path in files.values():  # start from the traced request alone
            path.unlink(missing_ok=True)
        body = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "front", "arguments": {"text": "hi"}},
        }
        response = loopback.post(
            front.mcp_url,
            json=body,
            headers={"Accept": "application/json, text/event-stream", "traceparent": TRACEPARENT},
            timeout=15,
        )
        result = response.json()["result"]
        assert result["structuredContent"] == {"result": "front>middle>back:hi"}
        calls = {
            name: wait_until(
                lambda path=path: [s for s in read_spans(path) if s["name"].startswith("tools/call")], 10
            )
            for name, path in files.items()
        }
        assert back.process.poll() is None
    spans = [s for name in files for s in calls[name]]  # type: ignore[union-attr]
    by_id = {s["span_id"]: s for s in spans}
    assert {s["trace_id"] for s in spans} == {"0af7651916cd43dd8448eb211c80319c"}

    def one(service: str, kind: str) -> dict[str, Any]:
        (span,) = [s for s in spans if s["service"] == service and s["kind"] == kind]
        return span

    front_in, front_out = one("trace-front", "SERVER"), one("trace-front", "CLIENT")
    middle_in, middle_out = one("trace-middle", "SERVER"), one("trace-middle", "CLIENT")
    back_in = one("trace-back", "SERVER")
    assert len(spans) == 5
    # The tree: caller -> front (server) -> front's proxy call -> middle (server) -> ... -> back (server).
    assert front_in["parent_span_id"] == "b7ad6b7169203331" and front_in["parent_is_remote"]
    assert front_out["parent_span_id"] == front_in["span_id"]
    assert middle_in["parent_span_id"] == front_out["span_id"] and middle_in["parent_is_remote"]
    assert middle_out["parent_span_id"] == middle_in["span_id"]
    assert back_in["parent_span_id"] == middle_out["span_id"]
    assert {s["parent_span_id"] for s in spans} - set(by_id) == {"b7ad6b7169203331"}
    assert front_out["name"] == "tools/call middle" and front_out["attributes"]["mesh.capability"] == "middle"
    assert middle_in["attributes"]["mesh.trace.source"] == "_meta"  # ours read the W3C _meta first
    assert front_in["attributes"]["mesh.trace.source"] == "traceparent"
    assert all(s["status"] == "UNSET" for s in spans)
    # The registry calls are spans of their own (own traces: a heartbeat belongs to no request).
    registry_spans = [s for s in read_spans(files["back"]) if s["name"].startswith("registry ")]
    assert registry_spans and {s["trace_id"] for s in registry_spans}.isdisjoint({front_in["trace_id"]})
    assert {s["name"] for s in registry_spans} <= {
        "registry POST /heartbeat",
        "registry HEAD /heartbeat",
        "registry DELETE /agents",
    }
    # The front agent logs JSON lines; lines written inside the traced call carry its trace id.
    logged = [json.loads(line) for line in front.output if line.startswith("{")]
    assert logged and all(entry["agent"] == "trace-front" for entry in logged)
