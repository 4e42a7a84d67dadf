"""`mesh run` and the registry's port, through the real entry point: several agents join a registry that
already answers there, a port held by something else is one line, a repeated app is refused, and an agent
under `--reload` that runs its own registry is ready only once that registry lists it."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys

from ..agents import ROOT, agent_env, run_cli, run_mesh, run_registry, stop, wait_until

FAST = {"MCP_MESH_HEALTH_INTERVAL": "0.5"}
APPS = ["starter_app", "starter_app.calculator"]


def agents_at(registry_url: str, status: str = "healthy") -> list[str]:
    """The names of the agents the registry lists with `status`."""
    listing = run_cli(["list", "--json", "--registry-url", registry_url])
    assert listing.returncode == 0, listing.stderr
    return sorted(a["name"] for a in json.loads(listing.stdout)["agents"] if a["status"] == status)


def test_several_agents_join_a_registry_already_running_on_the_port() -> None:
    with run_registry() as registry:
        args = ["run", *APPS, "--port", "0", "--registry-port", str(registry.port)]
        with run_mesh(args, env={"MESH_REGISTRY__EMBEDDED_PORT": "0", **FAST}, timeout=30) as launcher:
            wait_until(lambda: "every agent is ready; Ctrl-C stops them" in launcher.text(), timeout=30)
            assert f"joining the registry already running at {registry.base_url}" in launcher.text()
            assert agents_at(registry.base_url) == ["calculator", "starter"]
            assert stop(launcher.process) == 0
        assert "Traceback" not in launcher.text() and "OSError" not in launcher.text()
        # they left (unregistered); the registry serves on
        assert agents_at(registry.base_url, "unhealthy") == ["calculator", "starter"]


def test_a_registry_port_held_by_something_else_is_one_line() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_cli(["run", *APPS, "--port", "0", "--registry-port", str(port)])
    assert result.returncode == 1
    assert result.stderr == (
        f"mesh run: the registry's port 127.0.0.1:{port} is taken by something that is not a registry "
        "(Address already in use); pick another with --registry-port PORT (0: any free port), or join a "
        "registry with --registry-url\n"
    )


def test_mesh_registry_on_a_busy_port_says_why_once() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_cli(["registry", "--port", str(port)])
    assert result.returncode == 1
    assert result.stderr == (
        f"mesh registry: cannot listen on 127.0.0.1:{port} (Address already in use); choose another --port, "
        "or use the registry already running there\n"
    )


def test_an_app_named_twice_is_refused_at_once() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "mesh_framework.cli", "run", "starter_app", "starter_app", "--port", "0"],
        cwd=ROOT,
        env=agent_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = process.communicate(timeout=20)
    finally:
        stop(process)  # what the command did before: both copies started, the first kept serving
    assert process.returncode == 2 and out == ""
    assert err == (
        "mesh run: starter_app is named more than once; each app runs once (several agents are several "
        "modules: `mesh run starter_app starter_app.calculator`)\n"
    )


def test_reload_of_an_agent_with_its_own_registry_reports_the_agent_not_the_registry() -> None:
    env = {"MESH_REGISTRY__EMBEDDED_PORT": "0", **FAST}  # the agent starts its registry on a free port
    with run_mesh(["run", "starter_app", "--reload", "--port", "0"], env=env, timeout=30) as running:
        wait_until(lambda: "every agent is ready; Ctrl-C stops them" in running.text(), timeout=30)
        text = running.text()
        ready = re.findall(r"^starter_app is ready at (\S+)$", text, re.M)
        assert ready == [running.mcp_url]  # the agent's URL, once; not the registry's
        registry = re.search(r"registry serving (http://\S+)", text)
        assert registry is not None and registry.group(1) not in ready[0]
        # ready only once the registry it runs lists it
        assert text.index("joining the mesh at") < text.index("every agent is ready")
        assert stop(running.process) == 0
