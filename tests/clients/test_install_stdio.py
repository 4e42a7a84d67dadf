"""`mesh stdio` as a client runs it: the entry `mesh install` writes for an app, started from another folder
without this checkout on PYTHONPATH, answers MCP on stdin/stdout; a URL is bridged; failures are one line
and an exit code, never a hang."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mesh_framework.install.stdio import run_command
from tests.agents import ROOT, agent_env, run_agent, run_cli
from tests.cli_in_process import run_cli_in_process

STARTED = re.compile(r"Started server process \[(\d+)\]")

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
CALL = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "add", "arguments": {"a": 2, "b": 3}},
}


def talk(command: list[str], *, cwd: Path, env: dict[str, str]) -> tuple[int, list[dict[str, Any]], str]:
    """Send initialize, `initialized`, a tools/call and a line that is no JSON-RPC, then close stdin, as a
    client leaving; the exit code, the messages answered on stdout and stderr."""
    lines = [INITIALIZE, {"jsonrpc": "2.0", "method": "notifications/initialized"}, CALL]
    sent = "".join(json.dumps(line) + "\n" for line in lines) + "not json\n"
    done = subprocess.run(
        command, input=sent, cwd=cwd, env=env, capture_output=True, text=True, timeout=90, check=False
    )
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def assert_answered(messages: list[dict[str, Any]]) -> None:
    by_id = {message["id"]: message for message in messages}
    assert sorted(by_id) == [1, 2], messages
    assert by_id[1]["result"]["serverInfo"]["name"] == "starter"
    assert by_id[2]["result"]["structuredContent"] == {"result": 5}


def test_the_entry_mesh_install_writes_for_an_app_runs_it_for_the_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.chdir(ROOT)  # `mesh install` is run from the project folder
    # written by the CLI's main in this process: the entry it writes is what the client then starts
    installed = run_cli_in_process(["install", "cursor", "starter_app"], monkeypatch, {"HOME": str(home)})
    assert installed.returncode == 0, installed.stderr
    entry = json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]["starter_app"]
    assert entry["args"][-4:] == ["stdio", "starter_app", "--directory", str(ROOT)]

    elsewhere = tmp_path / "client"
    elsewhere.mkdir()
    env = agent_env()  # out of any mesh: no registry started by the test
    env.pop("PYTHONPATH")  # as a client starts it: the entry alone must find the app
    code, messages, stderr = talk([entry["command"], *entry["args"]], cwd=elsewhere, env=env)
    assert code == 0, stderr
    assert_answered(messages)
    assert "dropped a line from the client" in stderr  # said on stderr, not answered on stdout
    assert "serving http://127.0.0.1:" in stderr  # the agent's own lines go to stderr
    assert "stopping: leaving the mesh" in stderr  # stopped gracefully once the client left


def test_a_url_is_bridged(tmp_path: Path) -> None:
    with run_agent("starter_app") as agent:
        command = [sys.executable, "-m", "mesh_framework.cli", "stdio", "--url", agent.mcp_url]
        code, messages, stderr = talk(command, cwd=ROOT, env=agent_env())
    assert code == 0, stderr
    assert_answered(messages)


def test_an_unreachable_url_is_one_line_and_exit_3() -> None:
    command = [sys.executable, "-m", "mesh_framework.cli", "stdio", "--url", "http://127.0.0.1:9/mcp"]
    code, messages, stderr = talk(command, cwd=ROOT, env=agent_env())
    assert code == 3 and messages == []
    assert [line for line in stderr.splitlines() if "dropped a line" not in line] == [
        "mesh stdio: cannot reach the MCP endpoint at http://127.0.0.1:9/mcp "
        "(All connection attempts failed); start it first (`mesh run APP`, `mesh gateway`)"
    ]


def test_an_app_that_cannot_start_ends_with_why() -> None:
    done = run_cli(["stdio", "no_such_app_here"], timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert "cannot import 'no_such_app_here'" in done.stderr  # the agent's own line
    assert done.stderr.strip().splitlines()[-1] == (
        "mesh stdio: `mesh run no_such_app_here` ended (exit 1) before serving; its lines above say why"
    )


def test_the_bridge_ends_while_the_client_keeps_stdin_open(tmp_path: Path) -> None:
    """A client keeps stdin open as long as it runs: an agent that ends, or an endpoint that cannot be
    reached, still ends `mesh stdio` (so the client sees its server exit), not the next line it writes."""
    command = [sys.executable, "-m", "mesh_framework.cli", "stdio", "--url", "http://127.0.0.1:9/mcp"]
    with subprocess.Popen(
        command, cwd=ROOT, env=agent_env(), stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as bridge:
        assert bridge.stdin is not None and bridge.stderr is not None
        bridge.stdin.write(json.dumps(INITIALIZE) + "\n")
        bridge.stdin.flush()
        assert bridge.wait(timeout=60) == 3  # stdin still open
        assert "cannot reach the MCP endpoint" in bridge.stderr.read()

    command = [sys.executable, "-m", "mesh_framework.cli", "stdio", "starter_app"]
    with subprocess.Popen(
        command, cwd=ROOT, env=agent_env(), stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as bridge:
        assert bridge.stderr is not None
        lines = iter(bridge.stderr.readline, "")
        agent = next(int(m.group(1)) for line in lines if (m := STARTED.search(line)))
        next(line for line in lines if "serving http://" in line)
        os.kill(agent, signal.SIGKILL)  # the agent's process, by the PID it logged
        assert bridge.wait(timeout=60) == 1  # stdin still open
        assert any("mesh stdio: the agent ended (exit -9)" in line for line in lines)


def test_mesh_stdio_runs_the_app_on_loopback_and_a_free_port_with_the_options_given() -> None:
    head = [sys.executable, "-m", "mesh_framework.cli", "run", "starter_app", "--host", "127.0.0.1"]
    assert run_command("starter_app") == [*head, "--port", "0"]
    assert run_command("starter_app", profiles=["dev", "x"], config="cfg") == [
        *head,
        *["--port", "0", "--profile", "dev", "--profile", "x", "--config", "cfg"],
    ]
