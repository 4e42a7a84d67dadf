"""Health and graceful stop across real agent processes: a DOWN provider is withdrawn and its consumer
switches without a failed call, on our registry and on MCP Mesh's; a rolling restart loses no call.

The first two tests share one registry: each reads the status of its own agents, by id (the registry keeps
an agent that left, as unhealthy, under its name). The tests' requests go through `tests.agents.loopback`
(the caller loops and the checks polled run for seconds)."""

from __future__ import annotations

import json
import signal
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.agents import (
    AgentProcess,
    forget_agents,
    loopback,
    registered_id,
    run_agent,
    run_registry,
    wait_until,
)

START = 60  # seconds an agent may take to start on a loaded machine (a bound, not a measure)
FAST = {"MCP_MESH_HEALTH_INTERVAL": "0.5", "MESH_HEALTH__CACHE_TTL": "0.2", "MESH_HEALTH__TIMEOUT": "1"}


def call(agent: AgentProcess, a: int) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "sum_of_squares", "arguments": {"a": a, "b": 1}},
    }
    response = loopback.post(
        agent.mcp_url, json=body, headers={"Accept": "application/json, text/event-stream"}, timeout=15
    )
    return response.json()["result"]  # type: ignore[no-any-return]


class Caller:
    """Calls the calculator in a loop from a thread and keeps every answer that was not a success."""

    def __init__(self, calculator: AgentProcess) -> None:
        self.calculator = calculator
        self.calls = 0
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.calls += 1
            try:
                result = call(self.calculator, self.calls % 100)
                if result.get("isError") or result["structuredContent"] != {
                    "result": (self.calls % 100) ** 2 + 1
                }:
                    self.failures.append(json.dumps(result)[:300])
            except Exception as exc:
                self.failures.append(f"{type(exc).__name__}: {exc}")
            self._stop.wait(0.02)  # pacing, so the agents keep some of the two cores

    def __enter__(self) -> Caller:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=30)


@pytest.fixture(scope="module")
def shared() -> Iterator[AgentProcess]:
    with run_registry(0, "--timeout", "5", timeout=START) as running:
        yield running


@pytest.fixture
def registry(shared: AgentProcess) -> AgentProcess:
    """The module's registry, offering no agent (one an earlier test left behind is taken out)."""
    forget_agents(shared)
    return shared


def agents(registry_url: str) -> dict[str, dict[str, Any]]:
    listed = loopback.get(registry_url + "/agents", timeout=5).json().get("agents") or []
    return {a.get("name", ""): a for a in listed}


def healthy(registry_url: str, name: str) -> bool:
    return agents(registry_url).get(name, {}).get("status") == "healthy"


def status(registry: AgentProcess, agent_id: str) -> str | None:
    """What `registry` says of the agent `agent_id` (None: not listed)."""
    listed = loopback.get(registry.base_url + "/agents", timeout=5).json().get("agents") or []
    return next((str(a.get("status")) for a in listed if a.get("id") == agent_id), None)


def routed_to(calculator: AgentProcess, name: str, after: int) -> bool:
    return any(f"add -> {name}-" in line for line in calculator.output[after:])


def test_a_down_provider_is_withdrawn_and_its_consumer_switches_without_a_failed_call(
    registry: AgentProcess, tmp_path: Path
) -> None:
    flag = tmp_path / "health"
    flag.write_text("UP")
    env = {**FAST, "MCP_MESH_REGISTRY_URL": registry.base_url}
    with (
        run_agent("starter_app", env=env, timeout=START),
        run_agent("tests.apps.health_app", env={**env, "HEALTH_FILE": str(flag)}, timeout=START) as flaky,
        run_agent("starter_app.calculator", env=env, timeout=START) as calculator,
    ):
        flaky_id = registered_id(registry, flaky)
        wait_until(lambda: routed_to(calculator, "flaky-adder", 0), timeout=15)  # version 2.0.0 wins
        wait_until(lambda: not call(calculator, 1)["isError"], timeout=15)
        with Caller(calculator) as caller:
            mark = len(calculator.output)
            flag.write_text("DOWN")
            wait_until(lambda: status(registry, flaky_id) == "unhealthy", timeout=15)
            wait_until(lambda: routed_to(calculator, "starter", mark), timeout=15)
            wait_until(lambda: caller.calls > 20, timeout=15)
            mark = len(calculator.output)
            flag.write_text("UP")
            wait_until(lambda: status(registry, flaky_id) == "healthy", timeout=15)
            wait_until(lambda: routed_to(calculator, "flaky-adder", mark), timeout=15)
            # A check that hangs is DOWN after health.timeout; the agent itself keeps serving.
            mark = len(calculator.output)
            flag.write_text("HANG")
            wait_until(lambda: routed_to(calculator, "starter", mark), timeout=15)
            assert status(registry, flaky_id) == "unhealthy"
            assert loopback.get(flaky.base_url + "/livez", timeout=5).status_code == 200
            assert loopback.get(flaky.base_url + "/health", timeout=5).status_code == 503
        assert caller.failures == [], caller.failures[:5]
        assert caller.calls > 20
        assert "is DOWN: withdrawn from the registry" in flaky.text()
        scrape = loopback.get(calculator.base_url + "/metrics", timeout=5).text
    # the consumer's outbound calls went to both providers, its heartbeat was timed
    assert f'mesh_proxy_calls_total{{capability="add",endpoint="{flaky.base_url}",outcome="ok"}}' in scrape
    assert 'mesh_proxy_calls_total{capability="add",endpoint="http://127.0.0.1:' in scrape
    assert 'mesh_heartbeat_duration_seconds_count{kind="register"}' in scrape
    assert 'mesh_dependency_resolved{capability="add",tool="sum_of_squares"} 1.0' in scrape


def test_rolling_restart_of_one_of_two_providers_loses_no_call(registry: AgentProcess) -> None:
    env = {**FAST, "MCP_MESH_REGISTRY_URL": registry.base_url, "MESH_SERVER__SHUTDOWN_GRACE": "5"}

    def both_up(*adders: AgentProcess) -> bool:
        ids = [registered_id(registry, a) for a in adders]
        return wait_until(lambda: all(status(registry, i) == "healthy" for i in ids), timeout=15) is True

    @contextmanager
    def adder(name: str) -> Iterator[AgentProcess]:
        with run_agent("starter_app", "--name", name, env=env, timeout=START) as running:
            yield running

    with (
        adder("adder-b") as second,
        run_agent("starter_app.calculator", env=env, timeout=START) as calculator,
    ):
        with adder("adder-a") as first:
            both_up(first, second)
            wait_until(lambda: not call(calculator, 1)["isError"], timeout=15)
            caller = Caller(calculator).__enter__()
            wait_until(lambda: caller.calls > 10, timeout=15)
        # adder-a stopped gracefully (SIGTERM, waited for): the calls went on through adder-b
        assert first.process.returncode == 0
        with adder("adder-a") as again:
            both_up(again, second)
            wait_until(lambda: caller.calls > 30, timeout=15)
        wait_until(lambda: caller.calls > 40, timeout=15)
        caller.__exit__()
    assert caller.failures == [], caller.failures[:5]
    assert "stopping: leaving the mesh" in "".join(first.output)


def test_mcp_mesh_registry_stops_offering_a_down_agent(tmp_path: Path) -> None:
    from tests.interop.mcp_mesh import missing_tools, run_mesh_registry

    if missing_tools():
        pytest.fail(f"MCP Mesh tools missing ({missing_tools()}); run scripts/install-mcp-mesh.sh")
    flag = tmp_path / "health"
    flag.write_text("UP")
    consumer = {
        "agent_id": "calc-00000001",
        "name": "calc",
        "runtime": "python",
        "http_host": "127.0.0.1",
        "http_port": 9,
        "tools": [{"function_name": "calc", "capability": "calc", "dependencies": [{"capability": "add"}]}],
    }

    def resolved_to(url: str) -> str:
        request = urllib.request.Request(
            url + "/heartbeat",
            data=json.dumps(consumer).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=5) as answer:
            return str(json.loads(answer.read())["dependencies_resolved"]["calc"][0]["agent_id"])

    with run_mesh_registry(tmp_path / "registry") as registry:
        env = {
            **FAST,
            "MCP_MESH_REGISTRY_URL": registry.url,
            "HEALTH_FILE": str(flag),
            "MESH_REGISTRY__PUSH": "false",
        }
        with run_agent("tests.apps.health_app", env=env, timeout=START):
            wait_until(lambda: resolved_to(registry.url).startswith("flaky-adder-"), timeout=15)
            flag.write_text("DOWN")
            # MCP Mesh's registry reads no status field: the DELETE that follows it withdraws the agent
            wait_until(lambda: resolved_to(registry.url) == "", timeout=15)
            assert agents(registry.url)["flaky-adder"]["status"] == "unhealthy"
            flag.write_text("UP")
            wait_until(lambda: resolved_to(registry.url).startswith("flaky-adder-"), timeout=15)
            assert agents(registry.url)["flaky-adder"]["status"] == "healthy"


def test_sigterm_refuses_new_calls_and_finishes_the_ones_in_flight(tmp_path: Path) -> None:
    started, release = tmp_path / "started", tmp_path / "release"
    env = {"MESH_SERVER__SHUTDOWN_GRACE": "30"}
    with run_agent("tests.apps.health_app", env=env, timeout=START) as agent:
        held: dict[str, Any] = {}

        def hold() -> None:
            body = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "hold", "arguments": {"started": str(started), "release": str(release)}},
            }
            held["answer"] = loopback.post(
                agent.mcp_url,
                json=body,
                headers={"Accept": "application/json, text/event-stream"},
                timeout=60,
            )

        thread = threading.Thread(target=hold)
        thread.start()
        wait_until(started.exists, timeout=30)
        agent.process.send_signal(signal.SIGTERM)
        wait_until(lambda: loopback.get(agent.base_url + "/ready", timeout=5).status_code == 503, timeout=30)
        refused = loopback.post(
            agent.mcp_url,
            json={
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "add", "arguments": {}},
            },
            headers={"Accept": "application/json, text/event-stream"},
            timeout=10,
        )
        assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
        assert "shutting down" in refused.json()["error"]["message"]
        assert agent.process.poll() is None  # still serving the call in flight
        release.write_text("go")
        thread.join(timeout=60)
        assert agent.process.wait(timeout=60) == 0
    answer = held["answer"]
    assert answer.status_code == 200 and answer.json()["result"]["structuredContent"] == {
        "result": "released"
    }


def test_a_draining_provider_sends_its_consumer_to_the_alternate(tmp_path: Path) -> None:
    """The consumer has not heard that the provider is stopping (no push, a long heartbeat): the provider's
    503 with Retry-After is retried on the alternate, and counted as a failover."""
    started, release = tmp_path / "started", tmp_path / "release"
    with run_registry(0, "--timeout", "60", timeout=START) as registry:
        env = {**FAST, "MCP_MESH_REGISTRY_URL": registry.base_url, "MESH_SERVER__SHUTDOWN_GRACE": "30"}
        deaf = {**env, "MCP_MESH_HEALTH_INTERVAL": "60", "MESH_REGISTRY__PUSH": "false"}
        with (
            run_agent("starter_app", env=env, timeout=START),
            run_agent("tests.apps.health_app", env=env, timeout=START) as flaky,
        ):
            wait_until(
                lambda: healthy(registry.base_url, "flaky-adder") and healthy(registry.base_url, "starter")
            )
            with run_agent("starter_app.calculator", env=deaf, timeout=START) as calculator:
                wait_until(lambda: routed_to(calculator, "flaky-adder", 0), timeout=15)
                holder = threading.Thread(
                    target=httpx2.post,
                    args=(flaky.mcp_url,),
                    kwargs={
                        "json": {
                            "jsonrpc": "2.0",
                            "id": 1,
                            "method": "tools/call",
                            "params": {
                                "name": "hold",
                                "arguments": {"started": str(started), "release": str(release)},
                            },
                        },
                        "headers": {"Accept": "application/json, text/event-stream"},
                        "timeout": 60,
                    },
                )
                holder.start()
                wait_until(started.exists, timeout=30)
                flaky.process.send_signal(signal.SIGTERM)  # draining while the held call runs
                wait_until(
                    lambda: loopback.get(flaky.base_url + "/ready", timeout=5).status_code == 503, timeout=30
                )
                result = call(calculator, 3)
                assert result["isError"] is False and result["structuredContent"] == {"result": 10}
                scrape = loopback.get(calculator.base_url + "/metrics", timeout=5).text
                release.write_text("go")
                holder.join(timeout=60)
        endpoint = flaky.base_url
        assert f'mesh_proxy_failovers_total{{capability="add",endpoint="{endpoint}"}} 1.0' in scrape
        assert (
            f'mesh_proxy_calls_total{{capability="add",endpoint="{endpoint}",outcome="unreachable"}} 1.0'
            in scrape
        )
