"""Click commands run as tools, in a child process: output, exit codes, a hang stopped at its timeout,
stdin at EOF. The sample application is served in process; the commands run for real."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest

from mesh_framework import MeshApplication
from mesh_framework.testing.client import SyncMeshClient


@pytest.fixture(scope="module")
def client() -> Iterator[SyncMeshClient]:
    app = MeshApplication.load("tests.apps.click_app", environ={}, cli={"commands.background": False})
    client = SyncMeshClient(app)
    yield client
    client.close()


def process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def text_of(result: dict[str, Any]) -> str:
    return "\n".join(block["text"] for block in result["content"])


def test_inline_run_answers_the_output(client: SyncMeshClient) -> None:
    result = client.call_tool("status")
    assert result["isError"] is False
    assert text_of(result) == "cluster: up\nnodes: 3"
    assert result["structuredContent"] == {
        "command": "cli status",
        "exit_code": 0,
        "output": ["cluster: up", "nodes: 3"],
    }


def test_arguments_reach_the_command(client: SyncMeshClient) -> None:
    result = client.call_tool(
        "cassandra_stress_start",
        {
            "keyspace": "ks",
            "tables": ["a", "-b"],
            "hosts": ["h1"],
            "verbose": 2,
            "tls": False,
            "point": [1, 2],
        },
    )
    assert result["isError"] is False, result
    lines = result["structuredContent"]["output"]
    assert lines[0] == "starting stress"
    assert json.loads(lines[1]) == {
        "config_file": None,
        "dry_run": False,
        "duration": 60,
        "hosts": ["h1"],
        "keyspace": "ks",
        "point": [1.0, 2.0],
        "profile": "mixed",
        "rate": None,
        "tables": ["a", "-b"],
        "threads": 4,
        "tls": False,
        "verbose": 2,
    }
    assert "warning: replication factor is 1" in lines  # stderr is captured too


def test_non_zero_exit_is_an_error_with_code_and_last_lines(client: SyncMeshClient) -> None:
    result = client.call_tool("fail", {"code": 7})
    assert result["isError"] is True
    text = text_of(result)
    assert text.startswith("Command 'cli fail' exited with code 7:\n")
    assert text.splitlines()[-2:] == ["step 14", "disk full"]
    assert "step 0" not in text  # only the last lines in the message
    assert result["structuredContent"]["exit_code"] == 7
    assert result["structuredContent"]["output"][0] == "step 0"  # the whole (bounded) output is kept


def test_a_hanging_command_is_stopped_at_its_timeout(client: SyncMeshClient) -> None:
    result = client.call_tool("hang")
    assert result["isError"] is True
    assert text_of(result).startswith("Command 'cli hang' did not finish within 2.0s and was stopped")
    assert result["structuredContent"]["exit_code"] < 0  # killed by a signal
    (line,) = result["structuredContent"]["output"]
    assert line.startswith("hanging as pid ")
    assert not process_exists(int(line.rpartition(" ")[2]))  # the process is gone, not left running


def test_stdin_is_at_eof(client: SyncMeshClient) -> None:
    read = client.call_tool("read_stdin")
    assert read["isError"] is False
    assert text_of(read) == "stdin gave ''"
    asked = client.call_tool("ask")  # click.prompt at EOF aborts instead of waiting
    assert asked["isError"] is True
    assert "exited with code 1" in text_of(asked)
    assert "Aborted!" in asked["structuredContent"]["output"]


def test_bad_arguments_never_start_the_command(client: SyncMeshClient) -> None:
    result = client.call_tool("cassandra_stress_start", {"profile": "x", "extra": 1})
    assert result["isError"] is True
    assert text_of(result) == (
        "Invalid arguments for tool 'cassandra_stress_start': profile: Input should be 'read', 'write' or "
        "'mixed' (got 'x'); keyspace: required argument is missing; extra: unexpected argument"
    )


def test_inline_lines_stream_as_log_notifications(client: SyncMeshClient) -> None:
    params = {"name": "cassandra_stress_start", "arguments": {"keyspace": "ks"}}
    response = client.request("tools/call", params, modern=False)  # handshake-era clients get every level
    assert response.headers["content-type"].startswith("text/event-stream")
    messages = [json.loads(line[5:]) for line in response.text.splitlines() if line.startswith("data:")]
    logs = [m["params"] for m in messages if m.get("method") == "notifications/message"]
    assert {log["logger"] for log in logs} == {"cassandra_stress_start"}
    stdout = [log["data"] for log in logs if log["level"] == "info"]  # stdout in order; stderr beside it
    assert stdout[0] == "starting stress" and len(stdout) == 2
    assert [log["data"] for log in logs if log["level"] == "warning"] == ["warning: replication factor is 1"]
    assert messages[-1]["result"]["isError"] is False  # the answer comes after the notifications


def test_a_command_of_an_exposed_package_runs_from_its_own_root() -> None:
    exposed = ["tests.apps.click_ops.cli:cli", "tests.apps.click_pkg"]
    settings = {"commands.expose": exposed, "commands.background": False}
    client = SyncMeshClient(MeshApplication.load("tests.apps.click_app", environ={}, cli=settings))
    try:
        result = client.call_tool("kafka_topics_create_topic", {"name": "orders", "partitions": 6})
    finally:
        client.close()
    assert result["isError"] is False, result
    assert result["structuredContent"]["command"] == "kafka topics create-topic"
    assert text_of(result) == "created orders with 6 partitions"
