"""Two terminals (`mesh run starter_app`, `mesh run starter_app.calculator`): the embedded registry runs in
whichever agent started first. When that agent stops, the other one takes the registry over on the same
port, and the first, started again, joins it; calls through the mesh work again."""

from __future__ import annotations

import json
import socket

from ..agents import AgentProcess, run_agent, run_cli, wait_until

FAST = {"MCP_MESH_HEALTH_INTERVAL": "0.5"}


def healthy_agents(registry_url: str) -> list[str]:
    listing = run_cli(["list", "--json", "--registry-url", registry_url])
    if listing.returncode != 0:
        return []
    return sorted(a["name"] for a in json.loads(listing.stdout)["agents"] if a["status"] == "healthy")


def sum_of_squares(registry_url: str) -> str | None:
    result = run_cli(["call", "sum_of_squares", "a=3", "b=4", "--registry-url", registry_url])
    return result.stdout.strip() if result.returncode == 0 else None


def test_the_registry_is_handed_over_when_the_agent_running_it_stops() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    env = {"MESH_REGISTRY__EMBEDDED_PORT": str(port), **FAST}
    with run_agent("starter_app", env=env) as first:
        wait_until(lambda: "started the embedded registry" in first.text(), timeout=15)
        with run_agent("starter_app.calculator", env=env) as calculator:
            wait_until(
                lambda: f"joining the registry already running at {url}" in calculator.text(), timeout=15
            )
            assert wait_until(lambda: sum_of_squares(url), timeout=20) == "25"
            first.process.terminate()
            first.process.wait(timeout=15)
            taken = f"the embedded registry at {url} had stopped; this agent runs it now"
            wait_until(lambda: taken in calculator.text(), timeout=15)
            wait_until(lambda: healthy_agents(url) == ["calculator"], timeout=15)
            with run_agent("starter_app", env=env) as again:
                wait_until(
                    lambda: f"joining the registry already running at {url}" in again.text(), timeout=15
                )
                assert wait_until(lambda: sum_of_squares(url), timeout=20) == "25"
                assert healthy_agents(url) == ["calculator", "starter"]
        assert_no_traceback(calculator)


def assert_no_traceback(agent: AgentProcess) -> None:
    assert "Traceback" not in agent.text(), agent.text()
