"""Request limits on a real agent process: over-limit bodies, slow senders, huge headers, deep JSON."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx2
import pytest

from tests.agents import AgentProcess, run_agent

LIMIT = 64 * 1024
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def agent() -> Iterator[AgentProcess]:
    env = {
        "MESH_SERVER__MAX_BODY_BYTES": str(LIMIT),
        "MESH_SERVER__BODY_TIMEOUT": "1",
        "MESH_SERVER__HEADER_TIMEOUT": "1",
    }
    with run_agent("starter_app", env=env) as running:
        yield running


LINGER = 20.0


@pytest.fixture(scope="module")
def lingering_agent() -> Iterator[AgentProcess]:
    """An agent with the limit above and a body timeout long enough for 40 MiB on a loaded machine."""
    env = {"MESH_SERVER__MAX_BODY_BYTES": str(LIMIT), "MESH_SERVER__BODY_TIMEOUT": str(LINGER)}
    with run_agent("starter_app", env=env) as running:
        yield running


def _list_tools(agent: AgentProcess) -> int:
    with httpx2.Client(timeout=10, trust_env=False) as http:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        return http.post(agent.mcp_url, json=body, headers=HEADERS).status_code


def _read_until_closed(sock: socket.socket) -> bytes:
    """The whole answer: the server closes these connections, and may send head and body apart."""
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _oversized(size: int) -> bytes:
    return json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"pad": "x" * size}}
    ).encode()


def test_urllib_reads_the_413_of_an_over_limit_body(agent: AgentProcess) -> None:
    """urllib writes the whole body before reading: the server drains it, then answers."""
    request = urllib.request.Request(
        agent.mcp_url, data=_oversized(3 * LIMIT), headers=HEADERS, method="POST"
    )
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=10)
    assert caught.value.code == 413
    error = json.loads(caught.value.read())["error"]
    assert "server.max_body_bytes" in error["message"]
    assert _list_tools(agent) == 200


def test_a_body_far_over_the_limit_is_refused_at_once_and_lingered_on_for_the_body_timeout(
    agent: AgentProcess,
) -> None:
    """A declared length over the limit is answered before any of the body is read; the connection then
    reads and drops what comes for at most `server.body_timeout` (1 s here), and closes."""
    with socket.create_connection(("127.0.0.1", agent.port), timeout=10) as sock:
        head = (
            f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {100 * LIMIT}\r\n\r\n"
        )
        sock.sendall(head.encode())
        first = sock.recv(65536)  # the 413, while the body has not even begun
        assert first.startswith(b"HTTP/1.1 413"), first
        sock.sendall(b"x" * LIMIT)  # more body: read and dropped, not a reset
        answer = first + _read_until_closed(sock)  # the agent closes (the socket's 10 s would fail first)
    assert answer.count(b"HTTP/1.1 ") == 1, answer  # the dropped bytes were not read as a request
    assert b"connection: close" in answer.lower()
    assert _list_tools(agent) == 200


def test_urllib_sending_40_mib_reads_the_413(lingering_agent: AgentProcess) -> None:
    """urllib writes the whole body before it reads: the agent answers 413 at once and reads and drops the
    rest (it used to drain 4x the limit, then close: urllib then got a connection reset), whatever the size.
    """
    request = urllib.request.Request(
        lingering_agent.mcp_url, data=_oversized(40 * 1024 * 1024), headers=HEADERS, method="POST"
    )
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=30)
    assert caught.value.code == 413
    assert "server.max_body_bytes" in json.loads(caught.value.read())["error"]["message"]
    assert _list_tools(lingering_agent) == 200


def test_a_slow_body_is_answered_408(agent: AgentProcess) -> None:
    with socket.create_connection(("127.0.0.1", agent.port), timeout=15) as sock:
        head = (
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Content-Length: 100\r\n\r\n"
        )
        sock.sendall(head.encode() + b'{"jsonrpc"')  # ... and nothing more
        answer = _read_until_closed(sock)
    assert answer.startswith(b"HTTP/1.1 408")
    assert b"server.body_timeout" in answer
    assert _list_tools(agent) == 200


def test_slow_headers_are_answered_408(agent: AgentProcess) -> None:
    """A slow-loris sender: the request line and one header, then nothing."""
    with socket.create_connection(("127.0.0.1", agent.port), timeout=15) as sock:
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        answer = _read_until_closed(sock)
    assert answer.startswith(b"HTTP/1.1 408")
    assert b"server.header_timeout" in answer
    assert _list_tools(agent) == 200


def test_a_keep_alive_connection_idle_between_requests_is_not_cut_by_the_header_timeout(
    agent: AgentProcess,
) -> None:
    with httpx2.Client(timeout=10, trust_env=False) as http:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        assert http.post(agent.mcp_url, json=body, headers=HEADERS).status_code == 200
        time.sleep(1.5)  # idle longer than the header timeout, on the same pooled connection
        assert http.post(agent.mcp_url, json=body, headers=HEADERS).status_code == 200


def test_huge_headers_are_refused_and_the_agent_keeps_serving(agent: AgentProcess) -> None:
    with httpx2.Client(timeout=10, trust_env=False) as http:
        try:
            status = http.post(
                agent.mcp_url, json={}, headers={**HEADERS, "X-Padding": "x" * (256 * 1024)}
            ).status_code
        except httpx2.TransportError:
            status = 0  # the connection was closed on the client
    assert status in (0, 400, 431)
    assert _list_tools(agent) == 200


@pytest.mark.parametrize("depth", [1_000, 20_000])
def test_deep_json_is_a_parse_error(agent: AgentProcess, depth: int) -> None:
    body = b"[" * depth + b"]" * depth
    with httpx2.Client(timeout=10, trust_env=False) as http:
        answer = http.post(agent.mcp_url, content=body, headers=HEADERS)
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == -32700


def test_a_huge_array_within_the_body_limit_is_answered(agent: AgentProcess) -> None:
    items = ",".join("0" for _ in range(LIMIT // 2 - 100))
    body = f'{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"add","arguments":[{items}]}}}}'
    with httpx2.Client(timeout=10, trust_env=False) as http:
        answer = http.post(agent.mcp_url, content=body.encode(), headers=HEADERS)
    assert answer.status_code < 500, (answer.status_code, answer.headers, answer.text[:300])
    assert answer.content, (answer.status_code, answer.headers)
    assert "error" in answer.json() or answer.json()["result"]["isError"] is True


def test_parallel_requests_over_the_concurrency_limit_are_refused_not_queued_forever() -> None:
    env = {"MESH_SERVER__MAX_CONCURRENCY": "4"}
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "slow_echo", "arguments": {"text": "x", "delay": 1.0}},
    }

    def one(url: str) -> int:
        with httpx2.Client(timeout=20, trust_env=False) as http:
            try:
                return http.post(url, json=body, headers=HEADERS).status_code
            except httpx2.TransportError:
                return 0

    with run_agent("starter_app", env=env) as running, ThreadPoolExecutor(max_workers=24) as pool:
        statuses = list(pool.map(one, [running.mcp_url] * 24))
        assert set(statuses) <= {200, 503}, statuses
        assert 200 in statuses and 503 in statuses, statuses
        assert _list_tools(running) == 200


async def test_the_registry_answers_slow_headers_408_too(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    import mesh_framework.registry.registry_server as registry_server

    monkeypatch.setattr(registry_server, "HEADER_TIMEOUT", 0.5)
    async with registry_server.RegistryServer("127.0.0.1", 0) as registry:
        reader, writer = await asyncio.open_connection("127.0.0.1", registry.port)
        writer.write(b"POST /heartbeat HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        answer = await asyncio.wait_for(reader.read(65536), 10)
        writer.close()
    assert answer.startswith(b"HTTP/1.1 408")
