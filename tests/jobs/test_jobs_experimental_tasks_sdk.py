"""Protocol 2025-11-25's tasks with the official SDKs as clients: Python (mcp 1.x) and TypeScript.

One real agent (`mesh run tests.apps.tasks_app`) over HTTP; each SDK creates, polls, reads, lists and
cancels tasks through its own experimental tasks API (tests/interop/tasks_client.py and .mjs).
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.agents import AgentProcess, run_agent
from tests.conformance.test_conformance import NODE
from tests.interop.mcp_mesh import MESH_PYTHON

HERE = Path(__file__).resolve().parent.parent
TS_SDK = HERE.parent / ".tools/mcp-servers/node_modules/@modelcontextprotocol/sdk"


# each SDK client run is bounded at 120 s below, after the agent started
pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def agent() -> Iterator[AgentProcess]:
    with run_agent("tests.apps.tasks_app") as running:
        yield running


def run_client(command: list[str]) -> dict[str, Any]:
    finished = subprocess.run(command, check=False, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr[-3000:]
    seen: dict[str, Any] = json.loads(finished.stdout.strip().splitlines()[-1])
    return seen


def test_the_python_sdk_runs_tools_as_tasks(agent: AgentProcess) -> None:
    assert MESH_PYTHON.exists(), "run scripts/install-mcp-mesh.sh (the test script does)"
    seen = run_client([str(MESH_PYTHON), str(HERE / "interop/tasks_client.py"), agent.mcp_url])
    assert seen["protocol_version"] == "2025-11-25" and seen["tools_call_as_task"] is True
    support = seen["task_support"]
    assert support["slow_compute"] == support["failing_job"] == "optional" and support["greet"] is None
    assert seen["created_status"] == "working" and seen["statuses"][-1] == "completed"
    assert seen["result"] == {
        "text": "computed sdk in 0.3s",
        "structured": {"result": "computed sdk in 0.3s"},
    }
    assert seen["related_task"] == {"taskId": seen["created_ids"][0]}
    assert seen["failing_statuses"][-1] == "failed"
    assert seen["failing_result"] == {"is_error": True, "text": "RuntimeError: failing_job always fails"}
    assert seen["cancelled_status"] == "cancelled"
    assert (
        seen["cancel_again"]["code"] == -32602
        and "terminal status 'cancelled'" in seen["cancel_again"]["message"]
    )
    assert set(seen["created_ids"]) <= set(seen["listed"])
    assert seen["unknown"]["code"] == -32602 and "no-such-task" in seen["unknown"]["message"]
    assert seen["plain_handle"]["status"] == "working"  # a plain call: the job handle, schema-checked


def test_the_typescript_sdk_runs_tools_as_tasks(agent: AgentProcess) -> None:
    assert NODE.exists() and TS_SDK.exists(), "run scripts/install-node-tools.sh (the test script does)"
    seen = run_client([str(NODE), str(HERE / "interop/tasks_client.mjs"), agent.mcp_url, str(TS_SDK)])
    assert seen["protocolVersion"] == "2025-11-25"
    assert seen["tasksCapability"] == {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
    assert seen["taskTools"] == ["slow_compute", "failing_job", "protocol_error_job"]
    completed = seen["completed"]
    assert [m["type"] for m in (completed[0], completed[-1])] == ["taskCreated", "result"]
    result = completed[-1]["result"]  # validated by the SDK against slow_compute's outputSchema
    assert result["structuredContent"] == {"result": "computed ts in 0.3s"}
    assert result["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": completed[0]["taskId"]}
    failed = seen["failed"]
    assert failed[-2] == {"type": "taskStatus", "status": "failed"} and failed[-1]["type"] == "error"
    assert seen["cancelled"] == "cancelled"
    assert {"completed", "failed", "cancelled"} <= set(seen["listed"])
    assert seen["unknown"] == -32602
    assert seen["plainHandle"]["tool"] == "slow_compute"


def test_a_client_that_leaves_a_waiting_tasks_result_frees_its_slot() -> None:
    """tasks/result waits for the task's end; a client that disconnects meanwhile must not leave the wait
    holding a request slot (server.max_concurrency counts them) until the task ends."""
    import http.client
    import urllib.parse

    with run_agent("tests.apps.tasks_app", env={"MESH_SERVER__MAX_CONCURRENCY": "2"}) as agent:
        url = urllib.parse.urlsplit(agent.mcp_url)

        def post(method: str, params: dict[str, Any]) -> http.client.HTTPConnection:
            connection = http.client.HTTPConnection(url.hostname or "", url.port, timeout=10)
            body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
            headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
            connection.request("POST", url.path, body, headers)
            return connection

        created = post("tools/call", {"name": "slow_compute", "arguments": {"seconds": 30}, "task": {}})
        task_id = json.loads(created.getresponse().read())["result"]["task"]["taskId"]
        created.close()
        for _ in range(2):  # two waits, each left by its client: without the fix both slots stay taken
            waiting = post("tasks/result", {"taskId": task_id})
            waiting.sock.settimeout(0.3)  # type: ignore[union-attr]
            with pytest.raises(TimeoutError):
                waiting.getresponse()
            waiting.close()
        answers = []
        for _ in range(50):  # the agent notices the disconnects at once; allow for a loaded machine
            status = post("tasks/get", {"taskId": task_id})
            response = status.getresponse()
            answers.append(response.status)
            if response.status == 200:
                task = json.loads(response.read())["result"]
                break
            status.close()
            time.sleep(0.1)
        assert answers[-1] == 200, answers
        assert task["status"] == "working"  # only the wait ended: the task runs on
