"""The edge's limits on real servers: bodies and heads bounded while they arrive (memory asserted by the
server's RSS growth), idle connections that do not hold the request concurrency, silent ones closed."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from tests.agents import loopback

from ..agents import AgentProcess, run_agent, run_registry

MIB = 1024 * 1024
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


def _rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _chunked_post(port: int, path: str, total: int, headers: str = "") -> bytes:
    """POST `total` bytes of chunked JSON-ish body; returns what the server answered (it may answer and
    close before the body is all sent)."""
    piece = b"x" * (256 * 1024)
    frame = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
            f"Transfer-Encoding: chunked\r\n{headers}\r\n"
        )
        sock.sendall(head.encode() + b"1\r\n[\r\n")
        sent = 0
        try:
            while sent < total:
                sock.sendall(frame)
                sent += len(piece)
            sock.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed: what it said is read below
        sock.settimeout(30)
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except (ConnectionResetError, TimeoutError):
            pass
    return answer


@pytest.fixture(scope="module")
def registry() -> Iterator[AgentProcess]:
    with run_registry() as running:
        yield running


def test_a_chunked_body_to_the_registry_is_refused_without_being_held(registry: AgentProcess) -> None:
    before = _rss_mib(registry.process.pid)
    answer = _chunked_post(registry.port, "/heartbeat", 200 * MIB)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert _rss_mib(registry.process.pid) - before < 40  # not the 200 MiB sent
    assert loopback.get(registry.base_url + "/health", timeout=10).status_code == 200


@pytest.fixture(scope="module")
def a2a_agent() -> Iterator[AgentProcess]:
    env = {"MESH_REGISTRY__ENABLED": "false", "MESH_AUTH__TOKENS": '[{"token": "t0k", "scopes": []}]'}
    with run_agent("tests.apps.edge_app", env=env) as running:
        yield running


def test_a_chunked_body_to_a2a_is_refused_before_its_token_is_checked(a2a_agent: AgentProcess) -> None:
    pid = a2a_agent.process.pid
    before = _rss_mib(pid)
    answer = _chunked_post(a2a_agent.port, "/a2a", 200 * MIB)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert _rss_mib(pid) - before < 40


def test_a_48_mib_header_is_refused_and_the_agent_keeps_serving(a2a_agent: AgentProcess) -> None:
    pid = a2a_agent.process.pid
    before = _rss_mib(pid)
    with socket.create_connection(("127.0.0.1", a2a_agent.port), timeout=30) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ")
        answer = b""
        try:
            for _ in range(48 * 4):
                sock.sendall(b"a" * (256 * 1024))
        except (BrokenPipeError, ConnectionResetError):
            pass
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except ConnectionResetError:
            pass
    assert answer.startswith(b"HTTP/1.1 431"), answer[:200]
    assert b"server.max_header_bytes" in answer
    assert _rss_mib(pid) - before < 20
    assert loopback.get(a2a_agent.base_url + "/health", timeout=10).status_code == 200


def test_idle_connections_do_not_hold_the_concurrency_and_silent_ones_are_closed() -> None:
    env = {
        "MESH_REGISTRY__ENABLED": "false",
        "MESH_SERVER__MAX_CONCURRENCY": "8",
        "MESH_SERVER__FIRST_BYTE_TIMEOUT": "1",
    }
    with run_agent("tests.apps.edge_app", env=env) as agent:
        idle = [socket.create_connection(("127.0.0.1", agent.port), timeout=20) for _ in range(64)]
        try:
            with httpx2.Client(timeout=10, trust_env=False) as http:
                assert http.post(agent.mcp_url, json=LIST_TOOLS, headers=HEADERS).status_code == 200
                assert (
                    http.post(agent.base_url + "/api/orders", json={"item": "a", "quantity": 1}).status_code
                    == 200
                )
            # a connection that never sends a byte is closed by the agent (recv sees the end), not kept
            assert idle[0].recv(1) == b""
        finally:
            for sock in idle:
                sock.close()
