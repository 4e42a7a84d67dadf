"""The CLI's error paths: one line saying what, where and how to fix, the documented exit code, and never
a traceback (0 ok, 1 error, 2 usage, 3 not reachable). The commands run by the CLI's `main` in the test's
process (`tests.cli_in_process`), against a registry and an agent that are processes; a closed pipe is a
process's own."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from ..agents import run_agent, run_registry, wait_until
from ..cli_in_process import run_cli_in_process


def assert_one_clean_line(stderr: str) -> None:
    assert "Traceback" not in stderr and "AttributeError" not in stderr
    assert len(stderr.strip().splitlines()) == 1, stderr


@pytest.mark.parametrize(
    ("args", "code", "expected"),
    [
        (["list"], 3, "the registry at http://127.0.0.1:9 is unreachable"),
        (["call", "add", "{}"], 3, "start one with `mesh run APP` or `mesh registry`"),
        (["call", "add", "{oops"], 2, "arguments must be a JSON object"),
        (["call", "add", "[1, 2]"], 2, "arguments must be a JSON object"),
    ],
)
def test_commands_without_a_registry(
    args: list[str], code: int, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = run_cli_in_process([*args, "--registry-url", "http://127.0.0.1:9"], monkeypatch)
    assert result.returncode == code, result.stderr
    assert expected in result.stderr
    assert_one_clean_line(result.stderr)


def test_a_url_that_is_no_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    with run_agent("starter_app") as agent:  # answers HTTP, but is not a registry
        result = run_cli_in_process(["list", "--registry-url", agent.base_url], monkeypatch)
    assert result.returncode == 3 and "does not answer like an MCP Mesh registry" in result.stderr
    assert_one_clean_line(result.stderr)


def test_list_and_call_against_a_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    with run_registry() as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url}

        def mesh(*args: str) -> subprocess.CompletedProcess[str]:
            return run_cli_in_process(args, monkeypatch, env)

        empty = mesh("list")
        assert empty.returncode == 0 and "no agents registered" in empty.stdout
        with run_agent("starter_app", env=env):
            assert wait_until(lambda: "starter" in mesh("list").stdout, timeout=20, interval=0.2)
            listing = mesh("list").stdout.splitlines()
            assert listing[0].split() == ["NAME", "ID", "STATUS", "ENDPOINT", "TOOLS"]
            typo = mesh("call", "ad", '{"a": 1, "b": 2}')
            assert typo.returncode == 1 and "did you mean 'add'" in typo.stderr
            assert_one_clean_line(typo.stderr)
            failed = mesh("call", "add", '{"a": "x", "b": 2}')
            assert failed.returncode == 1 and "Invalid arguments for tool 'add'" in failed.stderr
            ok = mesh("call", "add", '{"a": 1, "b": 2}')
            assert ok.returncode == 0 and ok.stdout.strip() == "3"


def test_registry_on_a_busy_port(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_cli_in_process(["registry", "--port", str(port)], monkeypatch)
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr and "choose another --port" in result.stderr
    assert_one_clean_line(result.stderr)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], "mesh: the following arguments are required: COMMAND (see `mesh --help`)"),
        (["lst"], "mesh: unknown command 'lst'; did you mean 'list'? (see `mesh --help`)"),
        (["catalog", "shwo"], "mesh catalog: unknown command 'shwo'; did you mean 'show'?"),
        (
            ["completion", "fish"],
            "mesh completion: argument shell: invalid choice: 'fish'; choose from bash, zsh",
        ),
        (
            ["catalog", "export", "starter_app", "--format", "yaml"],
            "mesh catalog export: unknown --format 'yaml'",
        ),
        (["call"], "mesh call: the following arguments are required: tool (see `mesh call --help`)"),
        (["run", "--port", "x"], "mesh run: argument --port: invalid int value: 'x'"),
        (["list", "--colour"], "mesh list: unrecognized arguments: --colour (see `mesh list --help`)"),
        (["catalog", "list", "x", "y"], "mesh catalog list: unrecognized arguments: y"),
        (["catalog", "export", "--file", "x"], "mesh catalog export: the following arguments are required"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    args: list[str], expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = run_cli_in_process(args, monkeypatch)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(expected), result.stderr
    assert_one_clean_line(result.stderr)


def test_an_application_that_does_not_import_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "broken_app.py").write_text("import no_such_dependency\n")
    monkeypatch.chdir(tmp_path)  # `mesh` imports the app from the folder it runs in
    monkeypatch.setattr(sys, "path", list(sys.path))  # which `main` puts on the path
    for command in (["run", "broken_app", "--port", "0"], ["config", "broken_app"]):
        result = run_cli_in_process(command, monkeypatch)
        assert result.returncode == 1
        assert "cannot import the application: ModuleNotFoundError: No module named 'no_such_dependency'" in (
            result.stderr
        )
        assert_one_clean_line(result.stderr)


def test_a_reader_that_leaves_early_is_no_error() -> None:
    """`mesh completion bash | head -1`: a closed pipe ends the command quietly."""
    from ..agents import ROOT, agent_env

    mesh = subprocess.Popen(
        [sys.executable, "-m", "mesh_framework.cli", "completion", "bash"],
        cwd=ROOT,
        env=agent_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert mesh.stdout is not None and mesh.stderr is not None
    mesh.stdout.close()  # nobody reads
    assert mesh.wait(timeout=30) == 0
    assert mesh.stderr.read() == b""
