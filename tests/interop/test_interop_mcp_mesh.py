"""Interop with the real MCP Mesh: its Go registry, mcp-mesh Python agents and `meshctl`, all on loopback.

Installed by `scripts/install-mcp-mesh.sh` (the test command runs it). Our agents join the real registry
unchanged; only the registry URL and a short heartbeat interval are set.

The tests share the module's registry and one starter agent (`starter`), but the one whose consumer must find
mcp-mesh's `add` alone, which runs its own. The restart test wipes the shared registry: the starter registers
again, as the test checks, so the registry is left as it was found.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.agents import AgentProcess, run_agent
from tests.agents import wait_until as wait_for
from tests.interop.mcp_mesh import (
    AGENTS_DIR,
    MeshRegistry,
    meshctl,
    ours,
    registry_agents,
    run_mesh_python_agent,
    strip_ansi,
)
from tests.mesh.test_mesh_integration import call, text


def names(registry: MeshRegistry) -> set[str]:
    return {a.get("name", "") for a in registry_agents(registry) if a.get("status") == "healthy"}


def succeeded(agent: AgentProcess, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    result = call(agent, tool, arguments)
    return None if result["isError"] else result


@pytest.fixture(scope="module")
def starter(shared_registry: MeshRegistry) -> Iterator[AgentProcess]:
    """Our starter agent (`add`, `greet`, ...), registered in the module's registry."""
    with run_agent("starter_app", env=ours(shared_registry)) as running:
        wait_for(lambda: "starter" in names(shared_registry), timeout=10)
        yield running


def test_two_of_our_agents_call_each_other_through_the_mcp_mesh_registry(
    shared_registry: MeshRegistry, starter: AgentProcess
) -> None:
    with run_agent("starter_app.calculator", env=ours(shared_registry)) as calc:
        result = wait_for(lambda: succeeded(calc, "sum_of_squares", {"a": 3, "b": 4}), timeout=15)
        assert result["structuredContent"] == {"result": 25}  # type: ignore[index]
        assert {"starter", "calculator"} <= names(shared_registry)


def test_our_consumer_calls_an_mcp_mesh_python_agent(registry: MeshRegistry) -> None:
    with (
        run_mesh_python_agent(AGENTS_DIR / "adder.py", registry),
        run_agent("starter_app.calculator", env=ours(registry)) as calc,
    ):
        result = wait_for(lambda: succeeded(calc, "sum_of_squares", {"a": 5, "b": 12}), timeout=15)
        assert result["structuredContent"] == {"result": 169}  # type: ignore[index]
        assert any("-> mesh-adder-" in line for line in calc.output)


def test_an_mcp_mesh_consumer_calls_our_agent(shared_registry: MeshRegistry, starter: AgentProcess) -> None:
    with run_mesh_python_agent(AGENTS_DIR / "calc_consumer.py", shared_registry) as mesh_calc:

        def answered() -> Any:
            message = mesh_calc.call_tool("mesh_calc", {"a": 2, "b": 3})
            result = message.get("result") or {}
            return result if result.get("structuredContent") == {"result": 5} else None

        assert wait_for(answered, timeout=20)


def test_meshctl_lists_and_calls_our_agents(
    shared_registry: MeshRegistry, starter: AgentProcess, tmp_path: Path
) -> None:
    registry = shared_registry
    listed = meshctl(["list"], registry, tmp_path / "home")
    assert listed.returncode == 0, listed.stderr
    assert "starter-" in strip_ansi(listed.stdout)
    as_json = json.loads(meshctl(["list", "--json"], registry, tmp_path / "home").stdout)
    tools = {t.get("function_name") for a in as_json["agents"] for t in a.get("tools") or []}
    assert {"add", "greet", "slow_echo"} <= tools
    called = meshctl(["call", "add", '{"a": 20, "b": 22}', "--raw"], registry, tmp_path / "home")
    assert called.returncode == 0, called.stderr + called.stdout
    assert json.loads(called.stdout)["structuredContent"] == {"result": 42}


def test_our_agent_re_registers_after_the_mcp_mesh_registry_restarts(
    shared_registry: MeshRegistry, starter: AgentProcess
) -> None:
    registry = shared_registry
    wait_for(lambda: "starter" in names(registry), timeout=10)
    registry.restart(downtime=1.0, wipe_db=True)  # it forgets everyone
    wait_for(lambda: "starter" in names(registry), timeout=20)
    assert starter.process.poll() is None
    assert not call(starter, "add", {"a": 1, "b": 1})["isError"]
    assert text(call(starter, "add", {"a": 1, "b": 2})) == "3"
