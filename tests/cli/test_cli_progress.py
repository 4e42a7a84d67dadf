"""`mesh run` with several agents says where each serves, what each still waits for, and only then that
every agent is ready (real processes and the embedded registry on loopback ports)."""

from __future__ import annotations

from tests.agents import run_agent, run_mesh, wait_until

APPS = ["starter_app.calculator", "tests.apps.propagation_app.back"]


def test_every_agent_is_ready_only_once_its_dependencies_resolve() -> None:
    joining = {"MESH_REGISTRY__EMBEDDED_PORT": "0"}  # agents join the launcher's registry
    with run_mesh(["run", *APPS, "--port", "0", "--registry-port", "0"], env=joining, timeout=30) as launcher:
        waits = "starter_app.calculator waits for a provider of add"
        wait_until(lambda: waits in launcher.text(), timeout=30)
        wait_until(lambda: "tests.apps.propagation_app.back is ready at http://127.0.0.1:" in launcher.text())
        assert "every agent is ready" not in launcher.text()
        # the provider of `add` joins the same registry from elsewhere
        with run_agent("starter_app", env={"MCP_MESH_REGISTRY_URL": launcher.base_url}):
            wait_until(lambda: "every agent is ready; Ctrl-C stops them" in launcher.text(), timeout=30)
