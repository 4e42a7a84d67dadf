"""Agents say which project they belong to (their app's top-level package) in the heartbeat; one that joins
a registry holding agents of another project says so in one line, naming them and how to keep projects
apart. Agents of the same project (the starter and its calculator) are one project."""

from __future__ import annotations

from mesh_framework.mesh.projects import other_projects
from tests.agents import loopback

from ..agents import run_agent, run_registry, wait_until


def test_an_agent_joining_another_projects_registry_says_so_once() -> None:
    with run_registry() as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
        with (
            run_agent("starter_app", env=env) as starter,
            run_agent("starter_app.calculator", env=env) as calc,
        ):
            wait_until(lambda: "add -> starter-" in calc.text(), timeout=30)  # both registered
            listing = loopback.get(registry.base_url + "/agents", timeout=5).json()
            assert {a["name"]: a.get("project") for a in listing["agents"]} == {
                "starter": "starter_app",
                "calculator": "starter_app",
            }
            assert other_projects(listing, "starter_app") == {}  # one project: nothing to say
            with run_agent("tests.apps.routes_app", env=env) as other:
                line = wait_until(
                    lambda: next((x for x in other.text().splitlines() if "other projects" in x), None),
                    timeout=30,
                )
                assert other.text().count("other projects") == 1
    assert isinstance(line, str)
    assert f"the registry at {registry.base_url} also holds agents of other projects: " in line
    assert "starter_app (calculator, starter)" in line and "project tests resolve" in line
    assert "registry.embedded_port" in line and "agent.namespace" in line
    assert "other projects" not in starter.text() + calc.text()  # they joined before it: nothing to say
