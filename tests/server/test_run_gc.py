"""`mesh run` pauses garbage collection while it imports the framework and loads the app, then freezes
what start-up built: the agent it serves collects garbage, and start-up's objects are out of its
collections."""

from __future__ import annotations

import httpx2
import pytest

from tests.agents import run_agent

pytestmark = pytest.mark.timeout(60)

JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def test_a_served_agent_collects_garbage_and_start_up_is_frozen() -> None:
    call = {"name": "gc_state", "arguments": {}}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}
    with run_agent("tests.apps.gc_state_app") as agent, httpx2.Client(timeout=10) as http:
        answer = http.post(agent.mcp_url, json=body, headers=JSON_HEADERS).json()
    state = answer["result"]["structuredContent"]
    assert state["enabled"] is True
    assert state["frozen"] > 10_000  # the framework's modules, classes and models: tens of thousands
