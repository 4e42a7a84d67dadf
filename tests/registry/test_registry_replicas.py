"""Scale-out on an existing distributed engine: MCP Mesh's registry binary, two replicas on one PostgreSQL
(`DATABASE_URL`), and our agents given both URLs (`MCP_MESH_REGISTRY_URL=A,B`).

An agent registered through one replica is resolved through the other; when the replica an agent uses
goes away it switches to the other, and back when that one goes away in turn."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.agents import AgentProcess, loopback, run_agent, wait_until
from tests.interop.mcp_mesh import MeshRegistry, missing_tools
from tests.mcp_servers import free_port
from tests.postgres import Postgres, run_postgres


@pytest.fixture(scope="module", autouse=True)
def installed() -> None:
    missing = missing_tools()
    assert not missing, f"run scripts/install-mcp-mesh.sh first (missing: {', '.join(missing)})"


FAST = {"MCP_MESH_HEALTH_INTERVAL": "0.5"}


@pytest.fixture(scope="module")
def postgres() -> Iterator[Postgres]:
    with run_postgres() as running:
        yield running


@pytest.fixture
def replicas(postgres: Postgres, tmp_path: Path) -> Iterator[tuple[MeshRegistry, MeshRegistry]]:
    """Two registry replicas on one database; the second starts once the first has created the schema
    (two replicas creating it at the same moment collide: the second fails, `duplicate key ... pg_type`)."""
    env = {"DATABASE_URL": postgres.url, "DEFAULT_TIMEOUT_THRESHOLD": "5", "HEALTH_CHECK_INTERVAL": "1"}
    first = MeshRegistry(tmp_path / "a", free_port(), dict(env))
    second = MeshRegistry(tmp_path / "b", free_port(), dict(env))
    for replica in (first, second):
        replica.data_dir.mkdir()
        replica.start()
    try:
        yield first, second
    finally:
        second.stop()
        first.stop()


def call(agent: AgentProcess, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    headers = {"Accept": "application/json, text/event-stream"}
    return loopback.post(agent.mcp_url, json=body, headers=headers, timeout=15).json()["result"]  # type: ignore[no-any-return]


def squares(agent: AgentProcess, a: int, b: int) -> Any:
    result = call(agent, "sum_of_squares", {"a": a, "b": b})
    return None if result["isError"] else result["structuredContent"]["result"]


def test_registered_through_one_replica_resolved_through_the_other(
    replicas: tuple[MeshRegistry, MeshRegistry],
) -> None:
    first, second = replicas
    with (
        run_agent("starter_app", env={**FAST, "MCP_MESH_REGISTRY_URL": first.url}),
        run_agent("starter_app.calculator", env={**FAST, "MCP_MESH_REGISTRY_URL": second.url}) as calculator,
    ):
        assert wait_until(lambda: squares(calculator, 3, 4), timeout=20) == 25
        # Each replica lists both agents: they share the database.
        for replica in replicas:
            names = {
                a["name"] for a in loopback.get(replica.url + "/agents", timeout=5).json()["agents"] or []
            }
            assert {"starter", "calculator"} <= names, names


def test_agents_fail_over_between_replicas_and_come_back(replicas: tuple[MeshRegistry, MeshRegistry]) -> None:
    first, second = replicas
    env = {**FAST, "MCP_MESH_REGISTRY_URL": f"{first.url},{second.url}"}
    with run_agent("starter_app", env=env), run_agent("starter_app.calculator", env=env) as calculator:
        assert wait_until(lambda: squares(calculator, 1, 2), timeout=20) == 5
        first.stop()
        wait_until(
            lambda: f"registry {first.url} unreachable; switching to {second.url}" in calculator.text()
        )
        assert squares(calculator, 2, 3) == 13  # the topology it holds keeps serving
        first.start()
        second.stop()
        wait_until(
            lambda: f"registry {second.url} unreachable; switching to {first.url}" in calculator.text()
        )
        assert wait_until(lambda: squares(calculator, 3, 3), timeout=10) == 18
        assert "Traceback" not in calculator.text()
