"""Click commands run in the background (the default): a call answers with a job handle, the output
becomes the job's messages line by line, failures and hangs end the job, cancel stops the process."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from mesh_framework import MeshApplication
from mesh_framework.testing.client import SyncMeshClient

from ..agents import wait_until
from .test_command_tools_run import process_exists


@pytest.fixture(scope="module")
def client() -> Iterator[SyncMeshClient]:
    client = SyncMeshClient(MeshApplication.load("tests.apps.click_app", environ={}))
    yield client
    client.close()


def start(client: SyncMeshClient, tool: str, arguments: dict[str, Any] | None = None) -> str:
    handle = client.call_tool(tool, arguments or {})
    assert handle["isError"] is False, handle
    assert handle["structuredContent"]["tool"] == tool
    return str(handle["structuredContent"]["job_id"])


def row(client: SyncMeshClient, job_id: str) -> dict[str, Any]:
    return client.call_tool("__mesh_job_status", {"job_id": job_id})["structuredContent"]  # type: ignore[no-any-return]


def finished(client: SyncMeshClient, job_id: str, timeout: float = 30.0) -> dict[str, Any]:
    def done() -> dict[str, Any] | None:
        current = row(client, job_id)
        return current if current["status"] in ("completed", "failed", "cancelled") else None

    return wait_until(done, timeout=timeout)  # type: ignore[return-value]


def test_background_call_answers_a_handle_and_captures_lines(client: SyncMeshClient) -> None:
    job_id = start(client, "count_lines", {"lines": 4})
    job = finished(client, job_id)
    assert job["status"] == "completed"
    assert job["messages"] == ["line 0", "line 1", "line 2", "line 3"]
    assert job["result"] == {
        "command": "cli count-lines",
        "exit_code": 0,
        "output": ["line 0", "line 1", "line 2", "line 3"],
    }
    assert job["submitted_payload"] == {"lines": 4}
    result = client.call_tool("__mesh_job_result", {"job_id": job_id})["structuredContent"]
    assert result["status"] == "completed"


def test_lines_arrive_while_the_command_runs(client: SyncMeshClient) -> None:
    job_id = start(client, "count_lines", {"lines": 40, "pause": 0.05})
    partial = wait_until(lambda: (r := row(client, job_id))["messages"] and r)
    assert partial["status"] == "working"  # a line was seen before the command ended
    assert finished(client, job_id)["messages"][-1] == "line 39"


def test_non_zero_exit_fails_the_job_with_exit_code_and_last_lines(client: SyncMeshClient) -> None:
    job = finished(client, start(client, "fail", {"code": 5}))
    assert job["status"] == "failed"
    assert job["error"].startswith("Command 'cli fail' exited with code 5:\n")
    assert job["error"].splitlines()[-1] == "disk full"
    assert job["messages"][0] == "step 0" and job["messages"][-1] == "disk full"
    summary = client.call_tool("get_server_status")["structuredContent"]
    assert summary["status"] == "failed"
    assert summary["command"].startswith("fail")


@pytest.fixture
def patient() -> Iterator[SyncMeshClient]:
    """The app with `hang` given a minute (its own 2 s may run out before a busy machine cancels it)."""
    app = MeshApplication.load("tests.apps.click_app", environ={}, cli={"commands.tools.hang.timeout": 60})
    client = SyncMeshClient(app)
    yield client
    client.close()


def test_cancel_stops_the_process(patient: SyncMeshClient) -> None:
    client = patient
    job_id = start(client, "hang")
    line = wait_until(lambda: row(client, job_id)["messages"])[0]  # type: ignore[index]
    pid = int(line.rpartition(" ")[2])
    assert process_exists(pid)
    cancelled = client.call_tool("__mesh_job_cancel", {"job_id": job_id})["structuredContent"]
    assert cancelled["ok"] is True
    assert finished(client, job_id)["status"] == "cancelled"
    wait_until(lambda: not process_exists(pid))


def test_a_hanging_job_fails_at_its_timeout(client: SyncMeshClient) -> None:
    job = finished(client, start(client, "hang"))
    assert job["status"] == "failed"
    assert job["error"].startswith("Command 'cli hang' did not finish within 2.0s and was stopped:\nhanging")
    assert not process_exists(int(job["messages"][0].rpartition(" ")[2]))


def test_bad_arguments_start_no_job(client: SyncMeshClient) -> None:
    result = client.call_tool("count_lines", {"lines": "many"})
    assert result["isError"] is True
    assert "lines: Input should be a valid integer" in result["content"][0]["text"]
