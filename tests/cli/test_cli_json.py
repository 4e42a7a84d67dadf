"""`--json` on every inspecting command, `mesh status`, and `mesh call` with key=value arguments.

Scripts get JSON on stdout (and nothing else there); errors stay one line on stderr with the documented
exit codes, with `--json` too.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from typing import Any

import pytest

from mesh_framework.cli import main
from mesh_framework.cli.agents import _agent_status, _parse_time
from mesh_framework.cli.call import parse_arguments
from mesh_framework.cli.common import CliError
from tests.agents import loopback

from ..agents import run_agent, run_cli, run_registry, wait_until
from .test_cli_errors import assert_one_clean_line

FAST = {"MCP_MESH_HEALTH_INTERVAL": "0.5"}
NOWHERE = "http://127.0.0.1:9"


@pytest.fixture(scope="module")
def mesh() -> Iterator[str]:
    """A registry with the starter's two agents (processes); yields the registry URL."""
    with run_registry() as registry:
        env = {**FAST, "MCP_MESH_REGISTRY_URL": registry.base_url}
        with run_agent("starter_app", env=env), run_agent("starter_app.calculator", env=env):
            wait_until(lambda: run_cli(["list"], env=env).stdout.count("healthy") == 2, timeout=20)
            yield registry.base_url


@pytest.fixture(autouse=True, name="clean")
def clean_fixture(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """`main()` runs in this process (fast): no MESH_ variables of ours, and the logging put back."""
    for name in [n for n in os.environ if n.startswith(("MESH_", "MCP_MESH_"))]:
        monkeypatch.delenv(name)
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


class Cli:
    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys

    def __call__(self, *args: str) -> tuple[int, str, str]:
        code = main(list(args))
        out, err = self.capsys.readouterr()
        return code, out, err

    def json(self, *args: str) -> Any:
        code, out, err = self(*args, "--json")
        assert code == 0, err
        return json.loads(out)


@pytest.fixture(name="cli")
def cli_fixture(capsys: pytest.CaptureFixture[str]) -> Cli:
    return Cli(capsys)


def test_list_json(mesh: str, cli: Cli) -> None:
    listing = cli.json("list", "--registry-url", mesh)
    assert listing["registry"] == mesh
    agents = {a["name"]: a for a in listing["agents"]}
    assert set(agents) == {"starter", "calculator"}
    calculator = agents["calculator"]
    assert calculator["tools"][0] == "sum_of_squares" and calculator["status"] == "healthy"
    assert agents["starter"]["id"].startswith("starter-") and "add" in agents["starter"]["tools"]


def test_status_json_and_plain(mesh: str, cli: Cli) -> None:
    status = cli.json("status", "--registry-url", mesh)
    assert status["registry"]["status"] == "healthy" and status["registry"]["service"] == "mcp-mesh-registry"
    agents = {a["name"]: a for a in status["agents"]}
    calculator, starter = agents["calculator"], agents["starter"]
    assert calculator["dependencies"]["total"] == calculator["dependencies"]["resolved"] == 1
    (slot,) = calculator["dependencies"]["slots"]
    assert slot["tool"] == "sum_of_squares" and slot["capability"] == "add" and slot["resolved"] is True
    assert slot["provider_name"] == "starter" and slot["provider_id"] == starter["id"]
    assert 0 <= calculator["last_heartbeat_seconds"] < 10 and calculator["last_heartbeat"].endswith("Z")
    code, out, _ = cli("status", "--registry-url", mesh)
    plain = out.splitlines()
    assert code == 0 and plain[0].startswith(f"registry {mesh}: healthy")
    assert plain[2].split() == ["NAME", "ID", "HEALTH", "LAST", "HEARTBEAT", "DEPENDENCIES"]
    assert any("1/1 resolved" in line and line.startswith("calculator") for line in plain)
    assert any("sum_of_squares needs add: resolved by starter" in line for line in plain)


def test_status_names_unresolved_dependencies(cli: Cli) -> None:
    with run_registry() as registry:
        url = registry.base_url
        code, out, _ = cli("status", "--registry-url", url)
        assert code == 0 and "no agents registered" in out
        with run_agent("starter_app.calculator", env={**FAST, "MCP_MESH_REGISTRY_URL": url}):
            wait_until(lambda: cli.json("status", "--registry-url", url)["agents"], timeout=20)
            (calculator,) = cli.json("status", "--registry-url", url)["agents"]
            assert calculator["dependencies"]["total"] == 1 and calculator["dependencies"]["resolved"] == 0
            assert calculator["dependencies"]["slots"][0]["resolved"] is False
            _, out, _ = cli("status", "--registry-url", url)
            assert "0/1 resolved" in out and "sum_of_squares needs add: UNRESOLVED" in out


def test_status_of_an_mcp_mesh_listing() -> None:
    """MCP Mesh lists resolved slots only, says null for none, and stamps nanoseconds."""
    agent = {
        "id": "calc-a52c7bb8",
        "name": "calc",
        "status": "healthy",
        "last_seen": "2026-11-22T04:11:59.244298929Z",
        "dependencies_resolved": 1,
        "total_dependencies": 2,
        "dependency_resolutions": [
            {
                "capability": "add",
                "endpoint": "http://127.0.0.1:18081",
                "function_name": "calc",
                "mcp_tool": "add",
                "provider_agent_id": "adder-6aba7530",
                "status": "available",
            }
        ],
        "llm_provider_resolutions": None,
        "llm_tool_resolutions": None,
    }
    now = _parse_time("2026-11-22T04:12:03.085821117Z")
    assert now is not None
    status = _agent_status(agent, now, {"adder-6aba7530": "adder"})
    assert status["last_heartbeat_seconds"] == 3.8
    assert status["dependencies"]["total"] == 2 and status["dependencies"]["resolved"] == 1
    assert status["dependencies"]["slots"][0]["provider_name"] == "adder"


def test_call_with_key_value_arguments_and_json(mesh: str, cli: Cli) -> None:
    at = ("--registry-url", mesh)
    assert cli("call", "add", "a=1", "b=2", *at)[:2] == (0, "3\n")
    assert cli("call", "sum_of_squares", '{"a": 3}', "b=4", *at)[1] == "25\n"
    _, greeting, _ = cli("call", "greet", "name=Ada", *at)
    assert json.loads(greeting)["text"] == "Hello, Ada!" and greeting.startswith('{\n  "text"')  # indented
    answer = cli.json("call", "add", "a=2", "b=2", *at)
    assert answer["result"] == 4 and answer["agent"] == "starter" and answer["tool"] == "add"
    assert answer["structured_content"] == {"result": 4}
    assert cli.json("call", "slow_echo", "text=hi", *at)["result"] == "hi"
    code, out, err = cli("call", "add", "a=x", "b=1", "--json", *at)
    assert (code, out) == (1, "") and "Invalid arguments for tool 'add'" in err
    assert_one_clean_line(err)
    code, _, err = cli("call", "add", "a=1", "b=1", "--agent", "nobody", *at)
    assert code == 1 and "no healthy agent named 'nobody'" in err
    assert cli("call", "add", "a=1", "b=1", "--agent", "starter", *at)[1] == "2\n"


def test_call_wait_follows_a_background_tool_to_its_result(mesh: str, cli: Cli) -> None:
    at = ("--registry-url", mesh)
    handle = cli.json("call", "countdown", "start=2", "pause=0", *at)["result"]
    assert handle["status"] in ("working", "completed") and handle["poll"]["status"] == "__mesh_job_status"
    assert cli("call", "countdown", "start=2", "pause=0", "--wait", *at)[:2] == (0, "liftoff\n")
    answer = cli.json("call", "countdown", "start=3", "pause=0", "--wait", *at)
    assert answer["result"] == "liftoff" and answer["structured_content"] == {"result": "liftoff"}
    row = cli.json("call", "__mesh_job_status", f"job_id={answer['job_id']}", *at)["result"]
    assert row["status"] == "completed" and row["messages"] == ["3", "2", "1"]
    assert cli("call", "add", "a=1", "b=2", "--wait", *at)[:2] == (0, "3\n")  # no job: --wait changes nothing


def test_ctrl_c_while_waiting_cancels_the_job(mesh: str, cli: Cli) -> None:
    import re
    import signal
    import subprocess
    import sys

    from ..agents import ROOT, agent_env, metric

    starter = next(a for a in _listing(mesh) if a["name"] == "starter")["endpoint"]

    def polls() -> float:  # the job's status polls the starter agent has served
        return metric(starter, "mesh_tool_calls_total", tool="__mesh_job_status") or 0.0

    polled = polls()
    waiting = subprocess.Popen(
        [sys.executable, "-m", "mesh_framework.cli", "call", "countdown", "start=60", "pause=0.5", "--wait"],
        cwd=ROOT,
        env=agent_env({"MCP_MESH_REGISTRY_URL": mesh}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:

        def running() -> bool:  # the job runs: the command is past its call, in its polling loop
            summary = cli.json("call", "get_server_status", "--registry-url", mesh)["result"]
            return bool(
                summary["status"] == "running" and summary["command"] == "countdown start=60 pause=0.5"
            )

        wait_until(running, timeout=30)
        wait_until(lambda: polls() > polled, timeout=30)  # the command follows the job: Ctrl-C cancels it
        waiting.send_signal(signal.SIGINT)
        out, err = waiting.communicate(timeout=30)
    finally:
        waiting.kill()
    assert waiting.returncode == 130 and out == "", err
    found = re.fullmatch(r"mesh call: interrupted; job (\S+) of 'countdown' was cancelled\n", err)
    assert found, err
    row = run_cli(
        ["call", "__mesh_job_status", f"job_id={found.group(1)}", "--json"],
        env={"MCP_MESH_REGISTRY_URL": mesh},
    )
    assert json.loads(row.stdout)["result"]["status"] == "cancelled"


def _listing(registry: str) -> list[dict[str, Any]]:
    return list(loopback.get(registry + "/agents", timeout=5).json()["agents"])


async def test_wait_reports_a_failed_or_cancelled_job_on_one_line() -> None:
    from mesh_framework.cli.job_wait import wait_for_job

    rows = iter([{"status": "working"}, {"status": "failed", "error": "RuntimeError: disk full"}])

    async def agent(tool: str, arguments: dict[str, Any]) -> Any:
        assert (tool, arguments) == ("__mesh_job_status", {"job_id": "j1"})
        return next(rows)

    with pytest.raises(CliError) as failed:
        await wait_for_job(agent, "j1", "backup")
    assert str(failed.value) == "job j1 of 'backup' failed: RuntimeError: disk full"
    assert failed.value.exit_code == 1


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        (["a=1", "b=2"], {"a": 1, "b": 2}),
        (["name=Ada"], {"name": "Ada"}),
        (["flag=true", "none=null", "x=1.5"], {"flag": True, "none": None, "x": 1.5}),
        (['tags=["a","b"]', 'opts={"k": 1}'], {"tags": ["a", "b"], "opts": {"k": 1}}),
        (['s="1"', "empty=", "eq=a=b"], {"s": "1", "empty": "", "eq": "a=b"}),
        (['{"a": 1, "b": 2}', "b=3"], {"a": 1, "b": 3}),
        ([], {}),
    ],
)
def test_parse_arguments(items: list[str], expected: dict[str, Any]) -> None:
    assert parse_arguments(items) == expected


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (["foo"], "argument 'foo' is neither key=value nor a JSON object"),
        (["=1"], "argument '=1' has no name before '='"),
        (["{oops"], "arguments must be a JSON object"),
        (["[1, 2]"], "arguments must be a JSON object"),
    ],
)
def test_bad_arguments_are_usage_errors(items: list[str], message: str) -> None:
    with pytest.raises(CliError) as caught:
        parse_arguments(items)
    assert caught.value.exit_code == 2 and message in str(caught.value)


@pytest.mark.parametrize(
    ("args", "code"),
    [(["list"], 3), (["status"], 3), (["call", "add", "a=1"], 3), (["call", "add", "oops"], 2)],
)
def test_json_errors_stay_on_stderr(cli: Cli, args: list[str], code: int) -> None:
    result = cli(*args, "--json", "--registry-url", NOWHERE)
    assert result[:2] == (code, "")
    assert_one_clean_line(result[2])


def test_config_json_has_typed_values_origins_and_masked_secrets(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MESH_REGISTRY__TOKEN", "hunter2")
    data = cli.json("config", "starter_app", "--profile", "dev")
    settings = data["settings"]
    assert data["app"] == "starter_app" and data["profiles"] == ["dev"]
    assert settings["server.port"] == {"value": 0, "origin": "config/application-dev.yaml:3"}
    assert settings["greeting.excited"]["value"] is True
    assert settings["tools.timeout"]["value"] == 30.0
    assert settings["registry.token"]["value"] == "******"
    assert settings["agent.name"]["origin"] == "code (@mesh_agent parameter)"


def test_catalog_list_and_show_json(cli: Cli) -> None:
    (notes,) = cli.json("catalog", "list", "starter_app")["servers"]
    assert notes["name"] == "notes" and notes["type"] == "stdio" and notes["command"] == "python"
    assert notes["origin"].endswith("config/mcp-servers.json")
    shown = cli.json("catalog", "show", "notes", "starter_app")
    assert shown["name"] == "notes" and shown["args"] == ["-m", "starter_app.servers.notes"]
