"""Instant topology: the embedded registry pushes answers to subscribed agents (real processes).

Agents here heartbeat every 60 s and the consumer is not called while it waits, so nothing but the push
stream can tell it within the test's bounds that a provider came, went, or that the registry restarted.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.agents import AgentProcess, loopback, run_agent, run_registry, wait_until
from tests.interop.mcp_mesh import missing_tools, registry_agents, run_mesh_registry

SLOW_HEARTBEAT = {"MCP_MESH_HEALTH_INTERVAL": "60"}
RESOLVED = re.compile(r"sum_of_squares:dep_0: add -> (\S+) at")


def mesh_env(url: str, **extra: str) -> dict[str, str]:
    return {**SLOW_HEARTBEAT, "MCP_MESH_REGISTRY_URL": url, **extra}


def call(agent: AgentProcess, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    headers = {"Accept": "application/json, text/event-stream"}
    return loopback.post(agent.mcp_url, json=body, headers=headers, timeout=15).json()["result"]  # type: ignore[no-any-return]


def names_at(registry: AgentProcess) -> dict[str, str]:
    """Each name's status at the registry; a healthy agent wins over one of its name that left (it stays
    listed as unhealthy)."""
    agents = loopback.get(registry.base_url + "/agents", timeout=5).json()["agents"]
    return {a["name"]: a["status"] for a in sorted(agents, key=lambda a: a["status"] == "healthy")}


@pytest.fixture(scope="module")
def module_registry() -> Iterator[AgentProcess]:
    with run_registry(0, "--timeout", "120") as registry:
        yield registry


@pytest.fixture
def registry(module_registry: AgentProcess) -> AgentProcess:
    """The module's registry, handed to a test with no healthy agent listed: the tests using it stop their
    agents gracefully (they unregister); the test that restarts a registry has its own."""
    wait_until(lambda: "healthy" not in names_at(module_registry).values(), timeout=10)
    return module_registry


def resolved_to(agent: AgentProcess) -> list[str]:
    return RESOLVED.findall(agent.text())


def test_a_consumer_learns_of_a_new_and_a_removed_provider_by_push(registry: AgentProcess) -> None:
    env = mesh_env(registry.base_url)
    with run_agent("starter_app.calculator", env=env) as calculator:
        wait_until(lambda: names_at(registry).get("calculator") == "healthy")
        with run_agent("starter_app", "--name", "adder-one", env=env):
            providers = wait_until(lambda: resolved_to(calculator), timeout=15)
            assert providers[0].startswith("adder-one-")  # type: ignore[index]
            assert call(calculator, "sum_of_squares", {"a": 3, "b": 4})["structuredContent"] == {"result": 25}
        # adder-one stopped (it unregistered): the consumer hears it without a call or a heartbeat
        wait_until(lambda: "sum_of_squares:dep_0: no provider any more" in calculator.text(), timeout=15)


def test_agents_resubscribe_when_the_registry_restarts() -> None:
    with run_registry(0, "--timeout", "120") as first:
        port = first.port
        env = mesh_env(first.base_url)
        with run_agent("starter_app.calculator", env=env) as calculator:
            wait_until(lambda: names_at(first).get("calculator") == "healthy")
            first.process.kill()  # no goodbye: the stream just breaks
            first.process.wait(timeout=10)
            with run_registry(port, "--timeout", "120") as second:  # same port, empty memory
                # the consumer reconnects, is told it is unknown and registers again at once
                wait_until(lambda: names_at(second).get("calculator") == "healthy", timeout=15)
                with run_agent("starter_app", "--name", "adder-two", env=env):
                    providers = wait_until(lambda: resolved_to(calculator), timeout=15)
                    assert providers[-1].startswith("adder-two-")  # type: ignore[index]
                    result = call(calculator, "sum_of_squares", {"a": 1, "b": 2})
                    assert result["structuredContent"] == {"result": 5}


def test_push_off_keeps_the_heartbeat_only_path(registry: AgentProcess) -> None:
    env = mesh_env(registry.base_url, MESH_REGISTRY__PUSH="false")
    with run_agent("starter_app.calculator", env=env) as calculator:
        wait_until(lambda: names_at(registry).get("calculator") == "healthy")
        with run_agent("starter_app", "--name", "adder-three", env=env) as adder:
            wait_until(lambda: names_at(registry).get("adder-three") == "healthy")
            # the registry resolved it, but a heartbeat-only consumer hears it only when it asks:
            # its first call finds the slot empty and wakes the heartbeat
            assert resolved_to(calculator) == []
            assert call(calculator, "sum_of_squares", {"a": 1, "b": 1})["isError"] is True
            wait_until(lambda: resolved_to(calculator), timeout=15)
            assert adder.process.poll() is None


def test_against_mcp_mesh_registry_the_agent_keeps_the_heartbeat(tmp_path: Path) -> None:
    """MCP Mesh's registry has no push stream (its GET /events is a snapshot list): heartbeat only."""
    missing = missing_tools()
    assert not missing, f"run scripts/install-mcp-mesh.sh first (missing: {', '.join(missing)})"
    with run_mesh_registry(tmp_path / "registry") as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.url, "MCP_MESH_HEALTH_INTERVAL": "1"}
        with run_agent("starter_app", env=env) as starter:
            wait_until(lambda: "following it by heartbeat only" in starter.text(), timeout=20)
            names = {a.get("name") for a in registry_agents(registry) if a.get("status") == "healthy"}
            assert "starter" in names
