"""Trace context across MCP Mesh: our agent -> an mcp-mesh 3.8 agent -> our agent, on MCP Mesh's own
registry. mcp-mesh reads our X-Trace-ID/X-Parent-Span (and `_trace_id`/`_parent_span`) and continues the
trace; what it sends on, we read. mcp-mesh records its spans only into Redis, which is not part of this
set-up, so its side is read from the trace context it reports in its answer."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.agents import loopback, run_agent, wait_until
from tests.interop.mcp_mesh import (
    AGENTS_DIR,
    MeshRegistry,
    run_mesh_python_agent,
)
from tests.observability.test_tracing_mesh import started_together

TRACE_ID = "5b8efff798038103d269b633813fc60c"
CALLER_SPAN = "eee19b7ec3c1b174"


def traced(registry: MeshRegistry, spans: Path) -> dict[str, str]:
    return {
        "MCP_MESH_REGISTRY_URL": registry.url,
        "MCP_MESH_HEALTH_INTERVAL": "1",
        "MESH_TRACING__ENABLED": "true",
        "MESH_TRACING__EXPORTER": "file",
        "MESH_TRACING__FILE": str(spans),
    }


def call_front(url: str, traceparent: str | None = None) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "front", "arguments": {"text": "hi"}},
    }
    headers = {"Accept": "application/json, text/event-stream"}
    if traceparent:
        headers["traceparent"] = traceparent
    return loopback.post(url, json=body, headers=headers, timeout=30).json()["result"]  # type: ignore[no-any-return]


def server_spans(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text().splitlines() if path.exists() else []
    return [s for s in map(json.loads, lines) if s["name"].startswith("tools/call")]


def test_an_mcp_mesh_agent_continues_our_trace_and_we_continue_its(
    registry: MeshRegistry, tmp_path: Path
) -> None:
    front_spans, back_spans = tmp_path / "front.jsonl", tmp_path / "back.jsonl"
    with started_together(
        run_agent("tests.apps.tracing_app.back", env=traced(registry, back_spans)),
        run_mesh_python_agent(
            AGENTS_DIR / "traced_middle.py", registry, {"MCP_MESH_DISTRIBUTED_TRACING_ENABLED": "true"}
        ),
        run_agent("tests.apps.tracing_app.front", env=traced(registry, front_spans)),
    ) as (_back, _middle, front):
        wait_until(lambda: "back:" in str(call_front(front.mcp_url).get("structuredContent")), timeout=30)
        front_spans.unlink(missing_ok=True)
        back_spans.unlink(missing_ok=True)
        result = call_front(front.mcp_url, f"00-{TRACE_ID}-{CALLER_SPAN}-01")
        answer = result["structuredContent"]["result"]
        match = re.fullmatch(r"front>middle\[([0-9a-f]{32})/([0-9a-f]{16})/([0-9a-f]{16})\]>back:hi", answer)
        assert match, answer
        mesh_trace, mesh_span, mesh_parent = match.groups()
        ours = wait_until(lambda: len(server_spans(front_spans)) == 2 and server_spans(back_spans), 10)
        assert ours
    front_in, front_out = sorted(server_spans(front_spans), key=lambda s: s["kind"] != "SERVER")
    (back_in,) = server_spans(back_spans)
    # Ours -> mcp-mesh: it read our trace id and our proxy span as its parent.
    assert mesh_trace == TRACE_ID and front_in["trace_id"] == TRACE_ID
    assert mesh_parent == front_out["span_id"] and front_out["kind"] == "CLIENT"
    # mcp-mesh -> ours: our server span continues its trace, under its execution span.
    assert back_in["trace_id"] == TRACE_ID
    # Its parent is mcp-mesh's span for the proxy call, a child of the execution span it reported (that
    # span lives in mcp-mesh's Redis stream): an mcp-mesh span, none of ours.
    assert back_in["parent_is_remote"] and re.fullmatch(r"[0-9a-f]{16}", back_in["parent_span_id"])
    assert back_in["parent_span_id"] not in {
        mesh_span,
        front_out["span_id"],
        front_in["span_id"],
        CALLER_SPAN,
    }
    assert back_in["attributes"]["mesh.trace.source"] == "x-trace-id"
