"""`mesh gateway` traces as an agent does: with `tracing.*` set, a call through it is a server span
continuing the caller's trace, its call to the agent a client span, and the agent's span a child of that
one. The gateway and the agent each write their spans as JSON lines (`tracing.exporter: file`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mesh_framework.testing.client import build_request
from tests.agents import loopback

from ..agents import run_agent, run_mesh, run_registry, wait_until
from ..observability.test_tracing_mesh import read_spans

pytestmark = pytest.mark.timeout(120)

TRACE_ID, CALLER_SPAN = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
TRACEPARENT = f"00-{TRACE_ID}-{CALLER_SPAN}-01"


def traced(spans: Path) -> dict[str, str]:
    return {
        "MESH_TRACING__ENABLED": "true",
        "MESH_TRACING__EXPORTER": "file",
        "MESH_TRACING__FILE": str(spans),
    }


def test_a_call_through_the_gateway_is_one_trace_with_the_callers(tmp_path: Path) -> None:
    gateway_spans, agent_spans = tmp_path / "gateway.jsonl", tmp_path / "agent.jsonl"
    with run_registry(0, "--timeout", "120") as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
        with (
            run_agent("tests.apps.mesh_gateway_app", env={**env, **traced(agent_spans)}),
            run_mesh(["gateway", "--port", "0"], env={**env, **traced(gateway_spans)}) as gateway,
        ):
            wait_until(lambda: "of 1 agent(s)" in gateway.text(), timeout=30)
            body, headers = build_request(
                "tools/call", {"name": "echo", "arguments": {"text": "hi"}}, modern=True, name=None
            )
            answer = loopback.post(
                gateway.mcp_url, json=body, headers={**headers, "traceparent": TRACEPARENT}, timeout=30
            )
            assert answer.json()["result"]["structuredContent"] == {"text": "hi", "replica": "1"}

            def calls(path: Path) -> list[dict[str, Any]]:
                return [s for s in read_spans(path) if s["trace_id"] == TRACE_ID]

            ours = wait_until(lambda: len(found := calls(gateway_spans)) == 2 and found, 15)
            theirs = wait_until(lambda: calls(agent_spans), 15)
    assert ours and theirs
    (served,) = [s for s in ours if s["kind"] == "SERVER"]
    (relayed,) = [s for s in ours if s["kind"] == "CLIENT"]
    (ran,) = theirs
    assert served["service"] == "mesh-gateway" and served["name"].startswith("tools/call")
    assert served["parent_span_id"] == CALLER_SPAN and served["parent_is_remote"]
    assert relayed["parent_span_id"] == served["span_id"]
    assert relayed["attributes"]["mesh.provider.agent_id"].startswith("tools")
    assert ran["kind"] == "SERVER" and ran["parent_span_id"] == relayed["span_id"]
    assert {s["status"] for s in (served, relayed, ran)} == {"UNSET"}
