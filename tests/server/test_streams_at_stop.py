"""Streams when their client leaves and when their agent stops, on real agent processes: a route whose
generator never awaits is still cancelled when its client leaves and still stopped by SIGTERM; a stream
(route or tool) still running when `server.shutdown_grace` ends gets a final error and one log line, no
traceback; `mesh run a b` waits for its agents' grace before killing them."""

from __future__ import annotations

import json
import re
import signal
from typing import Any

import httpx2
import pytest

from tests.agents import run_agent, run_mesh, wait_until

pytestmark = pytest.mark.timeout(90)

APP = "tests.apps.route_streams_app"
ACCEPT = "application/json, text/event-stream"


def route_events(agent_url: str, path: str, *, on_data: Any = None) -> list[tuple[str, str]]:
    """Read a route's event stream to its end: (event, data) pairs; `on_data(n)` after the n-th."""
    events: list[tuple[str, str]] = []
    kind, data = "message", []
    with (
        httpx2.Client(timeout=30, trust_env=False) as http,
        http.stream("GET", agent_url + path) as response,
    ):
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])
            elif line == "" and data:
                events.append((kind, "\n".join(data)))
                kind, data = "message", []
                if on_data is not None:
                    on_data(len(events))
    return events


def stopped_error(events: list[tuple[str, str]]) -> dict[str, Any]:
    kind, data = events[-1]
    assert kind == "error", events[-3:]
    error: dict[str, Any] = json.loads(data)
    return error


def test_a_route_stream_that_never_awaits_is_cancelled_when_its_client_leaves() -> None:
    """The generator yields rows of an in-memory table without ever awaiting: once its client leaves, the
    agent answers the next request at once, the generator's `finally` has run, and SIGTERM stops it."""
    with run_agent(APP, env={"MESH_SERVER__SHUTDOWN_GRACE": "60"}) as agent:
        with (
            httpx2.Client(timeout=10, trust_env=False) as http,
            http.stream("GET", agent.base_url + "/api/rows") as response,
        ):
            received = 0
            for line in response.iter_lines():
                received += line.startswith("data: row")
                if received == 1000:
                    break
        with httpx2.Client(timeout=5, trust_env=False) as http:
            state = wait_until(lambda: (s := http.get(agent.base_url + "/api/state").json())["closed"] and s)
        assert state == {"started": 1, "closed": 1}
        agent.process.send_signal(signal.SIGTERM)
        # nothing is in flight, so the 60 s grace is not waited out
        assert agent.process.wait(timeout=30) == 0
    assert "Traceback" not in agent.text()


def test_a_stopping_agent_ends_a_route_stream_that_never_awaits_with_an_error_event() -> None:
    """SIGTERM while a client reads a never-awaiting stream: the stream counts as in flight for the
    grace, then ends with an `event: error` saying the agent stopped, and the agent exits in time."""
    grace = 0.3  # short: the stream runs flat out through the grace, on both sides (CPU)
    with run_agent(APP, env={"MESH_SERVER__SHUTDOWN_GRACE": str(grace)}) as agent:

        def stop_once(count: int) -> None:
            if count == 200:
                agent.process.send_signal(signal.SIGTERM)

        events = route_events(agent.base_url, "/api/rows", on_data=stop_once)
        assert agent.process.wait(timeout=10) == 0
    # the stream went on through the grace (rows after the signal), then ended with the error event
    assert all(data.startswith("row ") for _, data in events[:-1]) and len(events) > 201
    error = stopped_error(events)
    assert error["type"] == "AgentStopped"
    assert "the agent is shutting down" in error["error"]
    text = agent.text()
    assert "Traceback" not in text and "Cancel" not in text
    assert len([line for line in text.splitlines() if "/api/rows" in line]) == 1


def test_a_route_stream_waiting_when_the_grace_ends_gets_an_error_event_and_one_log_line() -> None:
    with run_agent(APP, env={"MESH_SERVER__SHUTDOWN_GRACE": "1"}) as agent:

        def stop_at_first(count: int) -> None:
            if count == 1:
                agent.process.send_signal(signal.SIGTERM)

        events = route_events(agent.base_url, "/api/stall", on_data=stop_at_first)
        assert agent.process.wait(timeout=10) == 0
    assert events[0] == ("message", "before")
    assert len(events) == 2
    error = stopped_error(events)
    assert error == {
        "error": "route GET /api/stall stopped after 1 chunk(s): the agent is shutting down",
        "type": "AgentStopped",
    }
    text = agent.text()
    assert "Traceback" not in text and "Cancel" not in text
    about = [line for line in text.splitlines() if "/api/stall" in line]
    assert len(about) == 1 and "stream ended after 1 chunk(s)" in about[0], about
    assert "still in flight" not in text  # the stream's own line says it all


def test_a_second_signal_ends_the_open_streams_at_once() -> None:
    """A long grace, then a second SIGTERM: the stream ends now, with its error event, and the agent exits
    without waiting out the grace."""
    with run_agent(APP, env={"MESH_SERVER__SHUTDOWN_GRACE": "60"}) as agent:

        def stop_twice(count: int) -> None:
            if count == 1:
                agent.process.send_signal(signal.SIGTERM)
                wait_until(lambda: "stopping: leaving the mesh" in agent.text())
                agent.process.send_signal(signal.SIGTERM)

        events = route_events(agent.base_url, "/api/stall", on_data=stop_twice)
        assert agent.process.wait(timeout=30) == 0  # not the 60 s grace
    assert stopped_error(events)["type"] == "AgentStopped"
    text = agent.text()
    assert "stopping now" in text
    assert "Traceback" not in text and "Cancel" not in text


def test_a_streamed_tool_call_waiting_when_the_grace_ends_gets_an_error_result_and_one_log_line() -> None:
    with run_agent(APP, env={"MESH_SERVER__SHUTDOWN_GRACE": "1"}) as agent:
        body = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "stall", "arguments": {}, "_meta": {"progressToken": "t"}},
        }
        messages: list[dict[str, Any]] = []
        with (
            httpx2.Client(timeout=20, trust_env=False) as http,
            http.stream("POST", agent.mcp_url, json=body, headers={"Accept": ACCEPT}) as response,
        ):
            for line in response.iter_lines():
                if line.startswith("data: "):
                    messages.append(json.loads(line[6:]))
                    if len(messages) == 1:
                        agent.process.send_signal(signal.SIGTERM)
        assert agent.process.wait(timeout=10) == 0
    assert messages[0]["params"]["message"] == "before"
    assert messages[-1]["id"] == 7 and messages[-1]["result"]["isError"] is True
    assert "the agent is shutting down" in messages[-1]["result"]["content"][0]["text"]
    text = agent.text()
    assert "Traceback" not in text and "Cancel" not in text
    about = [line for line in text.splitlines() if "'stall'" in line]
    assert len(about) == 1 and "stream ended after 1 chunk(s)" in about[0], about
    assert "still in flight" not in text


def test_mesh_run_waits_for_its_agents_grace_before_killing_them() -> None:
    """`mesh run a b` with a grace longer than the launcher's own default wait: the agent is given its
    whole grace, so a client mid-stream gets the final error event rather than a cut connection."""
    grace = 11.0
    env = {"MESH_SERVER__SHUTDOWN_GRACE": str(grace)}
    arguments = ["run", APP, "tests.apps.stream_app", "--port", "0", "--registry-port", "0"]
    with run_mesh(arguments, env=env, timeout=30) as launcher:
        pattern = re.compile(re.escape(APP) + r" is ready at (http://[\d.]+:\d+)")
        url = str(wait_until(lambda: (m := pattern.search(launcher.text())) and m.group(1), timeout=30))

        def stop_at_first(count: int) -> None:
            if count == 1:
                launcher.process.send_signal(signal.SIGTERM)

        events = route_events(url.rstrip("/"), "/api/stall", on_data=stop_at_first)
        assert launcher.process.wait(timeout=grace + 10) == 0
    # the stream ended by the agent at the end of its grace (a killed agent cuts the connection instead)
    assert stopped_error(events)["type"] == "AgentStopped"
    assert "Traceback" not in launcher.text()
