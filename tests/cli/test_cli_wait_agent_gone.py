"""`mesh call --wait` when the agent goes away while one of its job-status polls is in flight: the agent
accepted the request and its connection broke before any answer (a process killed mid-request). That is
the agent gone, as when it refuses connections: a registry job is followed in the registry, a local job is
reported lost with its agent (exit 3), one line each.

The agent is a stub on 127.0.0.1 that answers like an agent's MCP endpoint and cuts the connection of the
request the test picks (a close, or a reset); the registry is a real one. The test waits on the stub's
event, never on time."""

from __future__ import annotations

import json
import re
import socket
import socketserver
import struct
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.agents import ROOT, AgentProcess, agent_env, loopback, run_registry

pytestmark = pytest.mark.timeout(60)

LOCAL_JOB = "stub-job-1"
HANDLE_POLL = {"status": "__mesh_job_status", "result": "__mesh_job_result", "cancel": "__mesh_job_cancel"}
LOST = (
    "the registry does not know it (a background call's job lives in the memory of the agent that runs "
    "it), so its outcome cannot be read"
)


class StubAgent(socketserver.ThreadingTCPServer):
    """An agent's MCP endpoint, one request a connection: `hold` answers a job handle for `job_id`, the
    first `__mesh_job_status` a working row; the request named by `cut` (a tool, and for the status tool
    which of its polls) gets no answer, its connection closed (`reset`: with a TCP reset) instead."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, job_id: str, cut: tuple[str, int], *, reset: bool) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.job_id = job_id
        self.cut_at = cut
        self.reset = reset
        self.calls: dict[str, int] = {}
        self.cut = threading.Event()  # set once the chosen request's connection was broken

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def answer(self, tool: str) -> dict[str, Any] | None:
        """The `CallToolResult` for a call of `tool`, or None to break the connection instead."""
        self.calls[tool] = self.calls.get(tool, 0) + 1
        if (tool, self.calls[tool]) == self.cut_at:
            return None
        if tool == "hold":
            handle = {"job_id": self.job_id, "status": "working", "tool": "hold", "poll": HANDLE_POLL}
            return {"content": [], "structuredContent": handle, "isError": False}
        if tool == "__mesh_job_status":
            row = {
                "job_id": self.job_id,
                "status": "working",
                "progress": 0.5,
                "progress_message": "waiting for forever",
            }
            return {"content": [], "structuredContent": row, "isError": False}
        return {"content": [{"type": "text", "text": f"no tool {tool}"}], "isError": True}


class _Handler(socketserver.StreamRequestHandler):
    server: StubAgent

    def handle(self) -> None:
        length = 0
        while (line := self.rfile.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        request = json.loads(self.rfile.read(length))  # the whole request is in: the agent accepted it
        result = self.server.answer(str(request["params"]["name"]))
        if result is None:
            if self.server.reset:
                self.request.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.request.close()  # no answer: the agent is gone
            self.server.cut.set()
            return
        body = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode()
        head = f"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
        self.wfile.write(head.encode() + b"connection: close\r\n\r\n" + body)


@contextmanager
def stub_agent(
    registry: AgentProcess, job_id: str, cut: tuple[str, int], *, reset: bool = False
) -> Iterator[StubAgent]:
    """The stub, serving on its own thread, registered with `registry` as agent `stub` serving `hold`."""
    stub = StubAgent(job_id, cut, reset=reset)
    serving = threading.Thread(target=stub.serve_forever, daemon=True)
    serving.start()
    try:
        heartbeat = {
            "agent_id": "stub-1",
            "name": "stub",
            "http_host": "127.0.0.1",
            "http_port": stub.port,
            "tools": [{"function_name": "hold", "capability": "hold"}],
        }
        answer = loopback.post(registry.base_url + "/heartbeat", json=heartbeat, timeout=5)
        assert answer.status_code == 200, answer.text
        yield stub
    finally:
        stub.shutdown()
        stub.server_close()
        serving.join(timeout=10)


@pytest.fixture
def registry() -> Iterator[AgentProcess]:
    with run_registry(0, "--timeout", "120") as running:  # the stub sends one heartbeat: keep it healthy
        yield running


def mesh_call(registry: AgentProcess, *arguments: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "mesh_framework.cli", "call", "hold", "name=forever", *arguments],
        cwd=ROOT,
        env=agent_env({"MCP_MESH_REGISTRY_URL": registry.base_url}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(command: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = command.communicate(timeout=40)
    finally:
        command.kill()
    return command.returncode, out, err


@pytest.mark.parametrize("reset", [False, True], ids=["closed", "reset"])
def test_a_local_job_whose_agent_goes_away_during_a_status_poll_is_lost_with_it(
    registry: AgentProcess, reset: bool
) -> None:
    with stub_agent(registry, LOCAL_JOB, ("__mesh_job_status", 2), reset=reset) as stub:
        code, out, err = finish(mesh_call(registry, "--wait"))
        assert stub.cut.is_set()
    closed = r"RemoteProtocolError: Server disconnected without sending a response\."
    broken = "ReadError" if reset else closed  # a reset reads as an empty ReadError
    assert (code, out) == (3, ""), err
    assert re.fullmatch(
        rf"mesh call: http://127\.0\.0\.1:{stub.port}/mcp went away during the call of '__mesh_job_status' "
        rf"\({broken}\); job {LOCAL_JOB} of 'hold' was working 50% \(waiting for forever\) when last seen; "
        rf"{re.escape(LOST)}\n",
        err,
    ), err


def test_a_registry_job_whose_agent_goes_away_during_a_status_poll_is_followed_in_the_registry(
    registry: AgentProcess,
) -> None:
    submitted = {"capability": "hold", "submitted_payload": {"name": "forever"}, "submitted_by": "test"}
    created = loopback.post(registry.base_url + "/jobs", json=submitted, timeout=5)
    assert created.status_code == 201, created.text
    job_id = str(created.json()["id"])
    with stub_agent(registry, job_id, ("__mesh_job_status", 2)) as stub:
        command = mesh_call(registry, "--wait")
        try:
            assert stub.cut.wait(timeout=30), "the command never polled the job twice"
            cancel = {"reason": "its agent died"}
            answer = loopback.post(f"{registry.base_url}/jobs/{job_id}/cancel", json=cancel, timeout=5)
            assert answer.status_code == 200, answer.text
        finally:
            code, out, err = finish(command)
    assert (code, out) == (1, ""), err
    assert err == (
        f"mesh call: job {job_id} of 'hold' cancelled: cancelled: its agent died "
        "(as the registry holds it: the agent stopped answering)\n"
    )


def test_an_agent_that_goes_away_during_the_call_itself_is_unreachable(registry: AgentProcess) -> None:
    with stub_agent(registry, LOCAL_JOB, ("hold", 1)) as stub:
        code, out, err = finish(mesh_call(registry))
    assert (code, out) == (3, ""), err
    assert err == (
        f"mesh call: http://127.0.0.1:{stub.port}/mcp went away during the call of 'hold' "
        "(RemoteProtocolError: Server disconnected without sending a response.); it may or may not have run\n"
    )
