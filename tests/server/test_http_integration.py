"""A real agent process on a loopback ephemeral port, spoken to over real HTTP."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import httpx2
import pytest

from mesh_framework.jobs.tools import JOB_TOOLS
from tests.agents import AgentProcess, run_agent, run_cli, stop

MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def agent() -> Iterator[AgentProcess]:
    with run_agent("starter_app") as running:
        yield running


@pytest.fixture(scope="module")
def http() -> Iterator[httpx2.Client]:
    with httpx2.Client(timeout=10) as client:
        yield client


def test_legacy_list_and_call(agent: AgentProcess, http: httpx2.Client) -> None:
    listed = http.post(
        agent.mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=JSON_HEADERS
    )
    assert [t["name"] for t in listed.json()["result"]["tools"]] == [
        "greet",
        "add",
        "jot",
        "slow_echo",
        "ask",
        "countdown",
        "whoami",
        *JOB_TOOLS,
    ]
    body = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "greet", "arguments": {"name": "Ada"}},
    }
    result = http.post(agent.mcp_url, json=body, headers=JSON_HEADERS).json()["result"]
    assert result["structuredContent"]["text"] == "Hello, Ada!"


def test_modern_list_and_call(agent: AgentProcess, http: httpx2.Client) -> None:
    headers = {**JSON_HEADERS, "MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "add"}
    body = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 20, "b": 22}, "_meta": META},
    }
    response = http.post(agent.mcp_url, json=body, headers=headers)
    assert response.status_code == 200
    assert response.json()["result"]["structuredContent"] == {"result": 42}
    assert response.json()["result"]["resultType"] == "complete"


def test_bad_inputs_over_the_wire(agent: AgentProcess, http: httpx2.Client) -> None:
    parse = http.post(agent.mcp_url, content=b"{not json", headers=JSON_HEADERS)
    assert (parse.status_code, parse.json()["error"]["code"]) == (400, -32700)
    missing_header = http.post(
        agent.mcp_url,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}},
        headers={**JSON_HEADERS, "MCP-Protocol-Version": MODERN},
    )
    assert (missing_header.status_code, missing_header.json()["error"]["code"]) == (400, -32020)
    unknown = http.post(
        agent.mcp_url,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "zzz"}},
        headers=JSON_HEADERS,
    )
    assert "countdown, get_server_status, greet, jot, slow_echo, whoami" in unknown.json()["error"]["message"]
    wrong = http.post(
        agent.mcp_url,
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": [], "b": 1}},
        },
        headers=JSON_HEADERS,
    )
    assert wrong.json()["result"]["isError"] is True
    assert http.get(agent.mcp_url).status_code == 405
    assert http.delete(agent.mcp_url).status_code == 405


def test_oversized_body_is_413_before_reading_it(agent: AgentProcess, http: httpx2.Client) -> None:
    big = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x" * (4 * 1024 * 1024)}}
    )
    response = http.post(agent.mcp_url, content=big.encode(), headers=JSON_HEADERS)
    assert response.status_code == 413


def test_no_client_mistake_gets_a_500_or_a_traceback(agent: AgentProcess, http: httpx2.Client) -> None:
    bodies: list[bytes] = [
        b"",
        b"null",
        b"[]",
        b"{}",
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call"}',
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}',
        b'{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}',
        b"\xff\xfe",
    ]
    for body in bodies:
        response = http.post(agent.mcp_url, content=body, headers=JSON_HEADERS)
        assert response.status_code < 500, body
        assert "Traceback" not in response.text


def test_health_ready_livez(agent: AgentProcess, http: httpx2.Client) -> None:
    for path in ("/health", "/ready", "/livez"):
        response = http.get(agent.base_url + path)
        assert response.status_code == 200
        assert response.json()["agent"] == "starter"
        assert response.json()["agent_id"].startswith("starter-")


def test_graceful_stop_exits_zero() -> None:
    with run_agent("starter_app") as running:
        assert stop(running.process) == 0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_bad_setting_stops_start_up_before_binding() -> None:
    port = _free_port()
    result = run_cli(["run", "starter_app", "--port", str(port)], env={"MESH_TOOLS__TIMEOUT": "-1"})
    assert result.returncode == 1
    assert "tools.timeout = '-1' (from environment variable MESH_TOOLS__TIMEOUT)" in result.stderr
    assert "serving" not in result.stderr
    with socket.socket() as probe:  # nothing was left bound
        probe.bind(("127.0.0.1", port))


def test_port_in_use_is_a_clear_error() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        result = run_cli(["run", "starter_app", "--port", str(port)])
    assert result.returncode == 1
    assert f"server.port = {port} (from command line (--port)): cannot listen" in result.stderr
    assert "Traceback" not in result.stderr
