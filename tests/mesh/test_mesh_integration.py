"""Agents calling each other through the embedded registry, as real processes on loopback.

Topology changes: a provider appears, disappears, is replaced, crashes with and without an alternate;
the registry is down at start-up and comes back. Heartbeats are fast here (0.5 s) to keep the suite quick.
The tests that do not restart the registry share one; a test that reads its list of agents looks for its
own agents there by id (a registry keeps an agent that left, as unhealthy, in that list, under its name).
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from typing import Any

import pytest

from tests.agents import (
    AgentProcess,
    dependency_providers,
    forget_agents,
    loopback,
    registered_id,
    run_agent,
    run_registry,
    stop,
    wait_until,
)

FAST = {"MCP_MESH_HEALTH_INTERVAL": "0.5"}


@pytest.fixture(scope="module")
def shared() -> Iterator[AgentProcess]:
    with run_registry(0, "--timeout", "3") as running:
        yield running


@pytest.fixture
def shared_registry(shared: AgentProcess) -> AgentProcess:
    """The module's registry, offering no agent (one an earlier test killed is taken out)."""
    forget_agents(shared)
    return shared


def mesh_env(registry_url: str, **extra: str) -> dict[str, str]:
    return {**FAST, "MCP_MESH_REGISTRY_URL": registry_url, **extra}


def call(agent: AgentProcess, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    response = loopback.post(
        agent.mcp_url, json=body, headers={"Accept": "application/json, text/event-stream"}, timeout=15
    )
    return response.json()["result"]  # type: ignore[no-any-return]


def text(result: dict[str, Any]) -> str:
    return str(result["content"][0]["text"]) if result.get("content") else ""


def agents_at(registry: AgentProcess) -> list[dict[str, Any]]:
    return list(loopback.get(registry.base_url + "/agents", timeout=5).json().get("agents") or [])


def test_consumer_calls_provider_across_agents(shared_registry: AgentProcess) -> None:
    env = mesh_env(shared_registry.base_url)
    with run_agent("starter_app", env=env), run_agent("starter_app.calculator", env=env) as calculator:
        result = wait_until(
            lambda: (r := call(calculator, "sum_of_squares", {"a": 3, "b": 4})) and not r["isError"] and r,
            timeout=10,
        )
        assert result["structuredContent"] == {"result": 25}  # type: ignore[index]


def test_missing_provider_answers_at_once_then_a_new_provider_is_used(shared_registry: AgentProcess) -> None:
    env = mesh_env(shared_registry.base_url)
    with run_agent("starter_app.calculator", env=env) as calculator:
        registered_id(shared_registry, calculator)
        result = call(calculator, "sum_of_squares", {"a": 1, "b": 1})
        assert result["isError"] is True
        assert "dependency 'add' (dependency 0) is not resolved" in text(result)
        with run_agent("starter_app", env=env):
            ok = wait_until(
                lambda: not (r := call(calculator, "sum_of_squares", {"a": 1, "b": 2}))["isError"] and r,
                timeout=15,
            )
            assert ok["structuredContent"] == {"result": 5}  # type: ignore[index]
        # the provider stopped gracefully (it unregistered): within a heartbeat the slot empties again
        wait_until(
            lambda: "is not resolved" in text(call(calculator, "sum_of_squares", {"a": 1, "b": 2})),
            timeout=15,
        )


def test_provider_replaced(shared_registry: AgentProcess) -> None:
    env = mesh_env(shared_registry.base_url)
    with run_agent("starter_app.calculator", env=env) as calculator:
        with run_agent("starter_app", "--name", "adder-one", env=env):
            wait_until(
                lambda: not call(calculator, "sum_of_squares", {"a": 1, "b": 1})["isError"], timeout=15
            )
        with run_agent("starter_app", "--name", "adder-two", env=env):
            wait_until(
                lambda: not call(calculator, "sum_of_squares", {"a": 2, "b": 2})["isError"], timeout=15
            )
        assert any("-> adder-two-" in line for line in calculator.output)


def test_crash_with_an_alternate_loses_no_call(shared_registry: AgentProcess) -> None:
    env = mesh_env(shared_registry.base_url)
    with (
        run_agent("starter_app", "--name", "adder-a", env=env) as first,
        run_agent("starter_app", "--name", "adder-b", env=env) as second,
        run_agent("starter_app.calculator", env=env) as calculator,
    ):
        wait_until(lambda: not call(calculator, "sum_of_squares", {"a": 1, "b": 1})["isError"], timeout=15)
        for adder in (first, second):  # both listed
            registered_id(shared_registry, adder)
        # the consumer holds both adders: the one it calls and the alternate
        wait_until(lambda: dependency_providers(calculator, "sum_of_squares", "add") == 2, timeout=15)
        stop(first.process, sig=signal.SIGKILL)
        stop(first.process)
        results = [call(calculator, "sum_of_squares", {"a": i, "b": 1}) for i in range(20)]
        assert [r["isError"] for r in results] == [False] * 20, [text(r) for r in results if r["isError"]]


def test_crash_without_an_alternate_fails_fast_and_clearly(shared_registry: AgentProcess) -> None:
    env = mesh_env(shared_registry.base_url)
    with (
        run_agent("starter_app", env=env) as provider,
        run_agent("starter_app.calculator", env=env) as calculator,
    ):
        wait_until(lambda: not call(calculator, "sum_of_squares", {"a": 1, "b": 1})["isError"], timeout=15)
        stop(provider.process, sig=signal.SIGKILL)
        result = call(calculator, "sum_of_squares", {"a": 1, "b": 1})
        assert result["isError"] is True
        assert "unreachable" in text(result) or "is not resolved" in text(result)


def test_registry_down_at_start_up_then_back() -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = mesh_env(f"http://127.0.0.1:{port}")
    with run_agent("starter_app", env=env), run_agent("starter_app.calculator", env=env) as calculator:
        assert call(calculator, "sum_of_squares", {"a": 1, "b": 1})["isError"] is True  # still serving
        with run_registry(port, "--timeout", "3") as registry:
            wait_until(lambda: len(agents_at(registry)) == 2, timeout=15)
            ok = wait_until(
                lambda: not (r := call(calculator, "sum_of_squares", {"a": 2, "b": 3}))["isError"] and r,
                timeout=15,
            )
            assert ok["structuredContent"] == {"result": 13}  # type: ignore[index]


def test_local_multi_agent_run_stops_cleanly() -> None:
    from tests.agents import run_mesh

    with run_mesh(
        ["run", "starter_app", "starter_app.calculator", "--registry-port", "0", "--port", "0"],
        timeout=30,
        env={"MESH_REGISTRY__EMBEDDED_PORT": "0", **FAST},
    ) as launcher:
        # both registered (and the calculator's `add` resolved), so both have something to unregister
        wait_until(lambda: "every agent is ready; Ctrl-C stops them" in launcher.text(), timeout=30)
        assert any(line.startswith("[starter_app.calculator]") for line in launcher.output)
        assert stop(launcher.process, sig=signal.SIGINT) == 0
    assert sum("unregistered" in line or "DELETE" in line for line in launcher.output) >= 2


def test_registry_restart_with_its_database_costs_agents_at_most_one_registration(tmp_path: Any) -> None:
    database = str(tmp_path / "registry.db")
    with run_registry(0, "--timeout", "3", "--db", database) as first:
        port = first.port
        env = mesh_env(first.base_url)
        with (
            run_agent("starter_app", env=env) as provider,
            run_agent("starter_app.calculator", env=env) as calc,
        ):
            wait_until(lambda: not call(calc, "sum_of_squares", {"a": 1, "b": 1})["isError"], timeout=15)
            stop(first.process)
            with run_registry(port, "--timeout", "3", "--db", database) as second:
                wait_until(lambda: len(agents_at(second)) == 2)
                assert not call(calc, "sum_of_squares", {"a": 2, "b": 2})["isError"]
                registrations = [line for line in second.output if "registered at" in line]
                assert len(registrations) <= 2, registrations  # at most one per agent
            assert provider.process.poll() is None
