"""What `mesh` prints on the way: one agent's start lines once, a clean stop that is not called unhealthy,
`mesh list` without the framework's tools (unless `--all`), help and choice errors that say what is meant,
and a failed start that names every agent that failed. `mesh run` is a process; the commands that only
print run by the CLI's `main` in the test's process (`tests.cli_in_process`)."""

from __future__ import annotations

import json
import signal
import socket

import pytest

from ..agents import ROOT, run_agent, run_cli, run_mesh, run_registry, stop, wait_until
from ..cli_in_process import run_cli_in_process


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_one_agent_with_its_embedded_registry_logs_each_start_line_once_and_leaves_cleanly() -> None:
    env = {"MESH_REGISTRY__EMBEDDED_PORT": str(free_port())}
    with run_mesh(["run", "starter_app", "--port", "0"], env=env, timeout=30) as running:
        wait_until(lambda: "ask -> starter-" in running.text(), timeout=30)  # registered and resolved
        assert stop(running.process, sig=signal.SIGINT) == 0
        wait_until(lambda: "Finished server process" in running.text())
        text = running.text()
    for line in ("Started server process", "Application startup complete", "Shutting down"):
        assert text.count(line) == 1, text
    assert "registry serving http://127.0.0.1:" in text  # the registry's own line stays
    assert "left the mesh (unregistered)" in text
    assert "unhealthy" not in text


def test_mesh_list_leaves_the_framework_tools_out_unless_all(monkeypatch: pytest.MonkeyPatch) -> None:
    with run_registry() as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url}

        def listing(*args: str) -> str:
            return run_cli_in_process(["list", *args], monkeypatch, env).stdout

        with run_agent("starter_app.calculator", env=env):
            wait_until(lambda: "calculator" in listing(), timeout=20, interval=0.2)
            plain = listing()
            everything = listing("--all")
            listed = json.loads(listing("--json"))
            listed_all = json.loads(listing("--json", "--all"))
    row = next(line for line in plain.splitlines() if line.startswith("calculator"))
    assert row.split()[-1] == "sum_of_squares"
    assert "__mesh_job_status" not in plain and "get_server_status" not in plain
    assert "__mesh_job_status" in everything and "get_server_status" in everything
    assert listed["agents"][0]["tools"] == ["sum_of_squares"]
    framework = {"__mesh_job_status", "get_server_status"}
    assert {"sum_of_squares", *framework} <= set(listed_all["agents"][0]["tools"])


def test_help_of_a_one_app_command_says_module(monkeypatch: pytest.MonkeyPatch) -> None:
    shown = run_cli_in_process(["config", "--help"], monkeypatch).stdout
    assert "app         " in shown and "module holding a @mesh_agent class" in shown
    assert "module(s)" not in shown
    assert "module(s) holding" in run_cli_in_process(["run", "--help"], monkeypatch).stdout  # several


def test_a_format_far_from_any_lists_the_formats_without_a_guess(monkeypatch: pytest.MonkeyPatch) -> None:
    result = run_cli_in_process(["catalog", "export", "starter_app", "--format", "nope"], monkeypatch)
    assert result.returncode == 2
    assert result.stderr == (
        "mesh catalog export: unknown --format 'nope'; "
        "the formats: claude, vscode, gemini, anthropic, openai\n"
    )


def test_agents_failing_at_start_are_all_named_and_nobody_waits_for_them() -> None:
    """Two agents fail before serving, a third needs a capability none provides: the run ends naming both
    failures, and does not say the third waits for a provider."""
    apps = ["tests.apps.wiring_bad", "tests.apps.routes_bad", "starter_app.calculator"]
    result = run_cli(
        ["run", *apps, "--port", "0", "--registry-port", "0"],
        env={"MESH_REGISTRY__EMBEDDED_PORT": "0"},
        timeout=90,
        cwd=ROOT,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "agent(s) exited with an error: tests.apps.wiring_bad, tests.apps.routes_bad" in result.stderr
    assert "waits for a provider" not in result.stdout
