"""The fault suite: real agent processes and a real registry on loopback, faults injected on purpose.

One registry (on a port it can come back on), one consumer (`relay*` tools, 2 s tool timeout) and one
provider of `echo`. Misbehaving providers are registered by hand: a server answering 500 or garbage, and
the provider behind a TCP proxy that can drop traffic (a partition). The SIGKILL test starts a second
provider and runs last. Figures (calls lost, time to recover) come from benchmarks/faults_bench.py.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from mesh_framework.registry.store import RegistryStore
from tests.agents import (
    AgentProcess,
    dependency_providers,
    loopback,
    run_agent,
    run_registry,
    stop,
    wait_until,
)
from tests.registry.test_registry import agent as registration
from tests.registry.test_registry import tool
from tests.tcp_proxy import TcpProxy

HEARTBEAT = "0.5"
TOOL_TIMEOUT = "2"
START = 60.0  # seconds a process may take to start on a loaded machine


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def call(
    target: AgentProcess, name: str, arguments: dict[str, Any], headers: dict[str, str] | None = None
) -> Any:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    response = loopback.post(
        target.mcp_url,
        json=body,
        headers={"Accept": "application/json, text/event-stream", **(headers or {})},
        timeout=30,
    )
    assert response.status_code < 500, response.text
    return response.json()["result"]


def text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"]) if result.get("content") else ""


def ok_text(result: dict[str, Any]) -> str | None:
    return None if result["isError"] else text(result)


class Mesh:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.registry_port = free_port()
        self.registry_url = f"http://127.0.0.1:{self.registry_port}"
        self.registry: AgentProcess | None = None
        self.consumer: AgentProcess | None = None
        self.provider: AgentProcess | None = None
        self.stack = contextlib.ExitStack()

    def env(self, **extra: str) -> dict[str, str]:
        return {"MCP_MESH_REGISTRY_URL": self.registry_url, "MCP_MESH_HEALTH_INTERVAL": HEARTBEAT, **extra}

    def register(self, agent_id: str, port: int, capability: str, **extra: Any) -> None:
        payload = registration(agent_id, port, tool("echo", capability, **extra))
        response = loopback.post(self.registry_url + "/heartbeat", json=payload, timeout=5)
        assert response.status_code == 200, response.text


@pytest.fixture(scope="module")
def mesh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mesh]:
    state = Mesh(tmp_path_factory.mktemp("faults"))
    with (
        contextlib.ExitStack() as state.stack,
        run_registry(state.registry_port, "--timeout", "60", timeout=START) as registry,
        run_agent(
            "tests.apps.fault_app",
            "--name",
            "consumer",
            env=state.env(FAULT_CAPABILITY="unused_echo", MESH_TOOLS__TIMEOUT=TOOL_TIMEOUT),
            timeout=START,
        ) as consumer,
        run_agent(
            "tests.apps.fault_app",
            "--name",
            "provider-a",
            env=state.env(FAULT_LABEL="a", FAULT_MARK=str(state.tmp / "a")),
            timeout=START,
        ) as provider,
    ):
        state.registry, state.consumer, state.provider = registry, consumer, provider
        wait_until(lambda: ok_text(call(consumer, "relay", {"text": "hi"})), timeout=20)
        yield state
    for process in (consumer, provider):
        assert "Traceback" not in process.text(), process.text()[-3000:]


class _Misbehaving(BaseHTTPRequestHandler):
    mode = "500"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        if self.mode == "500":
            body = b"<html>Internal Server Error</html>"
            self.send_response(500)
        else:
            body = b"\x00\xffnot json at all"
            self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.parametrize("mode", ["500", "garbage"])
def test_a_provider_answering_500_or_garbage_is_a_clear_error(mesh: Mesh, mode: str) -> None:
    assert mesh.consumer is not None
    _Misbehaving.mode = mode
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Misbehaving)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        mesh.register(f"flaky-{mode}", server.server_address[1], "flaky_echo")
        result = wait_until(
            lambda: (
                (r := call(mesh.consumer, "relay_flaky", {"text": "x"}))
                and "is not resolved" not in text(r)  # its slot filled: the call reached it
                and r
            ),
            timeout=15,
        )
        assert result["isError"] is True  # type: ignore[index]
        message = text(result)  # type: ignore[arg-type]
        assert "Traceback" not in message and len(message.splitlines()) <= 3, message
        assert f":{server.server_address[1]}" in message or "HTTP 500" in message, message
        assert ok_text(call(mesh.consumer, "relay", {"text": "still"})) == "a:still"
    finally:
        server.shutdown()
        server.server_close()
        loopback.delete(f"{mesh.registry_url}/agents/flaky-{mode}", timeout=5)


def test_a_provider_that_never_answers_times_out_by_settings_and_by_the_callers_budget(mesh: Mesh) -> None:
    assert mesh.consumer is not None
    result = call(mesh.consumer, "relay", {"text": "slow", "delay": 30})  # answered long before the 30 s
    assert result["isError"] is True
    assert "timed out" in text(result) or "within" in text(result), text(result)
    # The caller's budget (1 s) bounds the relay and what it sends on, before the relay's own 2 s timeout.
    budget = call(mesh.consumer, "relay", {"text": "slow", "delay": 30}, headers={"X-Mesh-Timeout": "1"})
    assert budget["isError"] is True
    # the budget's deadline fired, not the relay's own timeout (whose error would not name the budget)
    assert "X-Mesh-Timeout" in text(budget) and f"after {TOOL_TIMEOUT}" not in text(budget), text(budget)
    assert ok_text(call(mesh.consumer, "relay", {"text": "after"})) == "a:after"


def test_a_budget_shorter_than_the_tool_bounds_it(mesh: Mesh) -> None:
    """A call with 0.5 s left to a tool that sleeps 1.5 s answers a timeout error at about 0.5 s."""
    assert mesh.provider is not None
    result = call(mesh.provider, "echo", {"text": "slow", "delay": 1.5}, headers={"X-Mesh-Timeout": "0.5"})
    assert result["isError"] is True, result
    # the tool was bounded by the 0.5 s budget (the error names it), not run to its 1.5 s end
    assert "timed out after 0.5s: the caller's time budget (X-Mesh-Timeout) ran out" in text(result)
    # not a positive number: no budget
    assert ok_text(call(mesh.provider, "echo", {"text": "x"}, headers={"X-Mesh-Timeout": "-1"})) == "a:x"


def test_after_a_timeout_only_idempotent_tools_go_to_another_provider(mesh: Mesh) -> None:
    """A hung provider (a blackhole, preferred by its version) before a working one: a tool marked
    `@mesh_tool(idempotent=True)` is called again on the working one; another tool is not repeated."""
    assert mesh.consumer is not None and mesh.provider is not None
    blackhole, other_blackhole = TcpProxy(mesh.provider.port), TcpProxy(mesh.provider.port)
    blackhole.mode = other_blackhole.mode = "drop"
    idempotent = {"function_name": "echo", "idempotent": True}
    try:
        mesh.register("idem-hung", blackhole.port, "idem_echo", version="2.0.0", kwargs=idempotent)
        mesh.register("idem-ok", mesh.provider.port, "idem_echo", kwargs=idempotent)
        mesh.register("plain-hung", other_blackhole.port, "plain_echo", version="2.0.0")
        mesh.register("plain-ok", mesh.provider.port, "plain_echo")
        resolved = wait_until(
            lambda: (
                (r := call(mesh.consumer, "relay_idem", {"text": "i"})) and "idem_echo" not in text(r) and r
            ),
            timeout=15,
        )
        assert ok_text(resolved) == "a:i", text(resolved)  # type: ignore[arg-type]
        plain = call(mesh.consumer, "relay_plain", {"text": "p"})
        assert plain["isError"] is True and "did not answer" in text(plain), text(plain)
    finally:
        blackhole.close()
        other_blackhole.close()
        for agent_id in ("idem-hung", "idem-ok", "plain-hung", "plain-ok"):
            loopback.delete(f"{mesh.registry_url}/agents/{agent_id}", timeout=5)


def test_a_partition_between_consumer_and_provider_fails_calls_then_heals(mesh: Mesh) -> None:
    assert mesh.consumer is not None and mesh.provider is not None
    proxy = TcpProxy(mesh.provider.port)
    try:
        mesh.register("far-provider", proxy.port, "far_echo")
        wait_until(lambda: ok_text(call(mesh.consumer, "relay_far", {"text": "x"})), timeout=15)
        proxy.mode = "drop"
        cut = call(mesh.consumer, "relay_far", {"text": "cut"})
        assert cut["isError"] is True
        assert "Traceback" not in text(cut)
        proxy.mode = "delay"
        proxy.delay = 0.2
        assert ok_text(call(mesh.consumer, "relay_far", {"text": "slow"})) == "a:slow"
        proxy.mode = "pass"
        assert (
            wait_until(lambda: ok_text(call(mesh.consumer, "relay_far", {"text": "back"})), timeout=10)
            == "a:back"
        )
    finally:
        proxy.close()
        loopback.delete(f"{mesh.registry_url}/agents/far-provider", timeout=5)


def test_a_wall_clock_jump_expires_nobody() -> None:
    """Liveness runs on the monotonic clock; the wall clock only stamps listings."""
    wall = [1_000_000.0]
    store = RegistryStore(None, timeout=20, wall=lambda: wall[0])
    try:
        store.heartbeat(registration("adder-0001", 9001, tool("add")))
        for jump in (3600.0, -7200.0, 86400.0):
            wall[0] += jump
            store.sweep()
            assert store.head("adder-0001") == 200
    finally:
        store.close()


def test_registry_restart_with_data_loss_agents_register_again_and_no_call_fails(mesh: Mesh) -> None:
    """The consumer keeps calling while the registry dies and comes back empty; when it registers again
    before the provider has, it keeps its topology one interval more instead of dropping the provider."""
    assert mesh.registry is not None and mesh.consumer is not None
    results: list[str | None] = []
    done = threading.Event()

    def keep_calling() -> None:
        while not done.is_set():
            results.append(ok_text(call(mesh.consumer, "relay", {"text": "during"})))
            done.wait(0.02)  # pacing, so the agents keep some of the two cores

    caller = threading.Thread(target=keep_calling)
    caller.start()
    try:
        stop(mesh.registry.process, sig=signal.SIGKILL)
        # a new registry without a database on the same port: everything it knew is lost; it runs until
        # the module ends (the next test needs it)
        fresh = mesh.stack.enter_context(run_registry(mesh.registry_port, "--timeout", "60", timeout=START))
        mesh.registry = fresh
        wait_until(lambda: {"consumer", "provider-a"} <= {a.get("name") for a in _agents(fresh)}, timeout=15)
        settled = len(results)
        wait_until(lambda: len(results) > settled + 10, timeout=15)  # calls after both registered again
    finally:
        done.set()
        caller.join(timeout=30)
    assert results and all(r == "a:during" for r in results), [r for r in results if r != "a:during"][:3]
    # one phrase for the event, whether the heartbeat or the topology stream noticed it first (the line
    # follows the registration the wait above saw; its way through the pipe is bounded here)
    consumer = mesh.consumer
    said = wait_until(lambda: [line for line in consumer.text().splitlines() if "again" in line], timeout=5)
    assert all("registered again" in line for line in said), said  # type: ignore[attr-defined]


def _agents(registry: AgentProcess) -> list[dict[str, Any]]:
    return list(loopback.get(registry.base_url + "/agents", timeout=5).json().get("agents") or [])


def test_sigkill_mid_call_fails_clearly_and_the_next_call_goes_to_the_alternate(mesh: Mesh) -> None:
    assert mesh.consumer is not None and mesh.provider is not None
    with run_agent(
        "tests.apps.fault_app",
        "--name",
        "provider-b",
        env=mesh.env(FAULT_LABEL="b", FAULT_MARK=str(mesh.tmp / "b")),
        timeout=START,
    ) as second:
        # the consumer holds both providers: the one it calls and the alternate
        wait_until(lambda: dependency_providers(mesh.consumer, "relay", "echo") == 2, timeout=15)
        marks = {"a": mesh.tmp / "a", "b": mesh.tmp / "b"}
        for mark in marks.values():
            mark.unlink(missing_ok=True)
        results: list[Any] = []
        in_flight = threading.Thread(
            target=lambda: results.append(call(mesh.consumer, "relay", {"text": "k", "delay": 1.5}))
        )
        in_flight.start()
        label = wait_until(lambda: next((k for k, m in marks.items() if m.exists()), None), timeout=10)
        victim = mesh.provider if label == "a" else second
        stop(victim.process, sig=signal.SIGKILL)
        in_flight.join(timeout=20)
        assert results and results[0]["isError"] is True
        assert "Traceback" not in text(results[0]) and text(results[0]), text(results[0])
        survivor = "b" if label == "a" else "a"
        assert ok_text(call(mesh.consumer, "relay", {"text": "next"})) == f"{survivor}:next"
