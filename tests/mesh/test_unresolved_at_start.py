"""A dependency unresolved while the agents start: the starter app run as `scripts/run.sh` runs it (both
agents and the embedded registry in one `mesh run`) logs no WARNING while the calculator's `add` resolves
to the starter agent, and an agent whose dependency nobody provides gets one WARNING after its first
registration (real processes on loopback ports)."""

from __future__ import annotations

import re

from tests.agents import metric, run_agent, run_cli, run_mesh, run_registry, stop, wait_until
from tests.mesh.test_mesh_integration import mesh_env

SECOND = {"MCP_MESH_HEALTH_INTERVAL": "1"}  # heartbeats: the settling round comes soon
READY = re.compile(r"starter_app\.calculator is ready at (http://[\d.]+:\d+)/mcp")


def warnings_about_dependencies(text: str) -> list[str]:
    return [line for line in text.splitlines() if " WARNING " in line and "dependency" in line]


def checks(base_url: str) -> float:
    """The heartbeat checks the agent made since it registered (each one a round after the first)."""
    return metric(base_url, "mesh_heartbeat_duration_seconds_count", kind="check") or 0.0


def test_the_starter_app_starts_without_a_warning() -> None:
    args = ["run", "starter_app", "starter_app.calculator", "--port", "0", "--registry-port", "0"]
    env = {"MESH_REGISTRY__EMBEDDED_PORT": "0", **SECOND}
    with run_mesh(args, env=env, timeout=30) as launcher:
        wait_until(lambda: "every agent is ready; Ctrl-C stops them" in launcher.text(), timeout=30)
        wait_until(lambda: "sum_of_squares:dep_0: add -> starter-" in launcher.text())
        found = READY.search(launcher.text())
        assert found is not None
        calculator = found.group(1)
        wait_until(lambda: checks(calculator) >= 2, timeout=20)  # past the round that settles the start
        answer = run_cli(["call", "sum_of_squares", '{"a": 3, "b": 4}', "--registry-url", launcher.base_url])
        assert (answer.returncode, answer.stdout.strip()) == (0, "25"), answer.stderr
        assert stop(launcher.process) == 0
    assert warnings_about_dependencies(launcher.text()) == [], launcher.text()


def test_a_dependency_nobody_provides_is_one_warning_after_the_first_registration() -> None:
    with (
        run_registry() as registry,
        run_agent("starter_app.calculator", env=mesh_env(registry.base_url, **SECOND)) as calculator,
    ):
        unresolved = "tool 'sum_of_squares': dependency 0 is unresolved: no provider of `add`"
        wait_until(lambda: unresolved in calculator.text(), timeout=20)
        settled = checks(calculator.base_url)
        wait_until(lambda: checks(calculator.base_url) >= settled + 2, timeout=20)  # rounds later: still one
        text = calculator.text()
    assert len(warnings_about_dependencies(text)) == 1
    joined, waiting = text.index("joining the mesh"), text.index("dependency 0 is not resolved yet")
    assert joined < waiting < text.index(unresolved)  # INFO while it joined, the WARNING after
