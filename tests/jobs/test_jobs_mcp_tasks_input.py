"""MCP tasks (2026-07-28) that ask their client for input, tools that run only as tasks, input rounds before
a task starts, and the routing header of the `tasks/*` methods; in process, against the conformance fixture
(`tests/apps/conformance_app/tasks.py`)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from mesh_framework import MeshApplication
from mesh_framework.jobs.mcp_tasks import TASKS_EXTENSION
from mesh_framework.protocol.versions import META_CLIENT_CAPABILITIES
from mesh_framework.testing import MeshTestClient, mesh_client
from mesh_framework.testing.client import build_request

TASKS = {"extensions": {TASKS_EXTENSION: {}}}
ELICITING_TASKS = {"elicitation": {}, **TASKS}

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def client() -> AsyncIterator[MeshTestClient]:
    app = MeshApplication.load("tests.apps.conformance_app", environ={"MESH_REGISTRY__ENABLED": "false"})
    async with mesh_client(app) as client:
        yield client


async def send(
    client: MeshTestClient,
    method: str,
    params: dict[str, Any],
    capabilities: dict[str, Any] | None = None,
    *,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, Any]]:
    """One 2026-07-28 request declaring `capabilities`; the HTTP status and the JSON-RPC answer."""
    body, sent = build_request(method, params, modern=True, name=None)
    body["params"]["_meta"][META_CLIENT_CAPABILITIES] = capabilities or {}
    response = await client.http.post(client.path, json=body, headers={**sent, **(headers or {})})
    if response.headers["content-type"].startswith("text/event-stream"):  # a tool taking a ToolContext
        return response.status_code, json.loads(response.text.rsplit("data: ", 1)[1])
    return response.status_code, response.json()


async def result(client: MeshTestClient, method: str, params: dict[str, Any], caps: Any = None) -> Any:
    status, answer = await send(client, method, params, ELICITING_TASKS if caps is None else caps)
    assert status == 200 and "result" in answer, answer
    return answer["result"]


async def until(client: MeshTestClient, task_id: str, wanted: set[str]) -> dict[str, Any]:
    for _ in range(2000):
        task = await result(client, "tasks/get", {"taskId": task_id})
        if task["status"] in wanted:
            return task  # type: ignore[no-any-return]
        await asyncio.sleep(0.005)
    raise AssertionError(f"task {task_id} never reached {wanted}")


async def test_a_task_that_asks_is_input_required_until_tasks_update_answers(client: MeshTestClient) -> None:
    created = await result(client, "tools/call", {"name": "confirm_delete", "arguments": {"filename": "a"}})
    assert created["resultType"] == "task" and "inputRequests" not in created
    asking = await until(client, created["taskId"], {"input_required"})
    request = asking["inputRequests"]["confirm"]
    assert request["method"] == "elicitation/create" and request["params"]["message"] == "Delete a?"
    ack = await result(
        client,
        "tasks/update",
        {
            "taskId": created["taskId"],
            "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": True}}},
        },
    )
    assert ack == {"resultType": "complete", "_meta": ack["_meta"]}
    done = await until(client, created["taskId"], {"completed", "failed", "cancelled"})
    assert done["status"] == "completed" and done["result"]["content"][0]["text"] == "deleted a"
    assert "inputRequests" not in done


async def test_answers_may_come_one_at_a_time_and_unknown_keys_are_ignored(client: MeshTestClient) -> None:
    task_id = (await result(client, "tools/call", {"name": "multi_input", "arguments": {}}))["taskId"]
    for _ in range(2000):
        asking = await until(client, task_id, {"input_required"})
        if len(asking["inputRequests"]) == 2:
            break
    assert set(asking["inputRequests"]) == {"first", "second"}
    first = {"first": {"action": "accept", "content": {"name": "Ada"}}, "never-asked": {"x": 1}}
    await result(client, "tasks/update", {"taskId": task_id, "inputResponses": first})
    still = await result(client, "tasks/get", {"taskId": task_id})
    assert still["status"] == "input_required" and set(still["inputRequests"]) == {"second"}
    again = {"first": {"action": "accept", "content": {"name": "late"}}}  # already answered: ignored
    await result(client, "tasks/update", {"taskId": task_id, "inputResponses": again})
    second = {"second": {"action": "accept", "content": {"name": "Grace"}}}
    await result(client, "tasks/update", {"taskId": task_id, "inputResponses": second})
    done = await until(client, task_id, {"completed"})
    assert done["result"]["content"][0]["text"] == "received Ada and Grace"
    # an ended task still acks (nothing is pending); a malformed update is -32602
    assert (await result(client, "tasks/update", {"taskId": task_id, "inputResponses": second}))["resultType"]
    status, answer = await send(
        client, "tasks/update", {"taskId": task_id, "inputResponses": {"second": 5}}, TASKS
    )
    assert status == 400 and answer["error"]["code"] == -32602
    assert "inputResponses" in answer["error"]["message"]


async def test_a_task_cannot_ask_for_what_its_client_cannot_answer(client: MeshTestClient) -> None:
    # the client declares tasks, not elicitation: the body's ask fails, a tool error
    created = await result(
        client, "tools/call", {"name": "confirm_delete", "arguments": {"filename": "b"}}, TASKS
    )
    done = await until(client, created["taskId"], {"completed", "failed"})
    assert done["status"] == "completed" and done["result"]["isError"] is True
    assert "missing capabilities: elicitation" in done["result"]["content"][0]["text"]
    # a plain call (the job handle): no client can answer, the job fails saying so
    handle = await result(
        client, "tools/call", {"name": "confirm_delete", "arguments": {"filename": "c"}}, {}
    )
    job_id = handle["structuredContent"]["job_id"]
    for _ in range(2000):
        row = await client.call_ok("__mesh_job_status", {"job_id": job_id})
        if row["status"] == "failed":
            break
        await asyncio.sleep(0.005)
    assert row["status"] == "failed" and "has no client that can answer" in row["error"]


async def test_cancelling_a_task_that_waits_for_input(client: MeshTestClient) -> None:
    task_id = (
        await result(client, "tools/call", {"name": "confirm_delete", "arguments": {"filename": "d"}})
    )["taskId"]
    await until(client, task_id, {"input_required"})
    await result(client, "tasks/cancel", {"taskId": task_id})
    done = await until(client, task_id, {"cancelled", "completed", "failed"})
    assert done["status"] == "cancelled" and "inputRequests" not in done


async def test_a_required_task_tool_refuses_clients_that_do_not_use_tasks(client: MeshTestClient) -> None:
    status, answer = await send(client, "tools/call", {"name": "failing_job", "arguments": {}}, {})
    assert status == 400 and answer["error"]["code"] == -32021
    assert answer["error"]["data"] == {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}
    assert "runs only as a task" in answer["error"]["message"]
    # 2025-11-25: listed as required, a plain call is -32601; the task form works
    listed = await client.result("tools/list", modern=False, name=None)
    assert listed["tools"]  # the legacy header-less request speaks 2025-03-26: no execution field
    body, headers = build_request("tools/list", {}, modern=False, name=None)
    headers["MCP-Protocol-Version"] = "2025-11-25"
    tools = (await client.http.post(client.path, json=body, headers=headers)).json()["result"]["tools"]
    support = {t["name"]: t.get("execution", {}).get("taskSupport") for t in tools}
    assert support["failing_job"] == "required" and support["slow_compute"] == "optional"
    assert support["greet"] is None
    body, headers = build_request(
        "tools/call", {"name": "failing_job", "arguments": {}}, modern=False, name=None
    )
    headers["MCP-Protocol-Version"] = "2025-11-25"
    refused = (await client.http.post(client.path, json=body, headers=headers)).json()
    assert refused["error"]["code"] == -32601 and "params.task" in refused["error"]["message"]
    body["params"]["task"] = {}
    created = (await client.http.post(client.path, json=body, headers=headers)).json()["result"]
    assert created["task"]["status"] == "working"
    # older versions have no task form: the job handle, as for any background tool
    old = await client.result("tools/call", {"name": "failing_job", "arguments": {}}, modern=False)
    assert old["structuredContent"]["status"] in ("working", "queued")


async def test_input_rounds_before_the_task_starts(client: MeshTestClient) -> None:
    params: dict[str, Any] = {"name": "test_tool_with_task", "arguments": {}}
    first = await result(client, "tools/call", params)
    assert first["resultType"] == "input_required" and "taskId" not in first
    assert first["inputRequests"]["user_name"]["method"] == "elicitation/create"
    params["inputResponses"] = {"user_name": {"action": "accept", "content": {"name": "Alice"}}}
    created = await result(client, "tools/call", params)
    assert created["resultType"] == "task" and "requestState" not in created
    done = await until(client, created["taskId"], {"completed", "failed"})
    assert done["result"]["content"][0]["text"] == "Hello, Alice, from a task!"
    # a client of the handshake era cannot answer input rounds: a tool error
    old = await client.call_tool("test_tool_with_task", {}, modern=False)
    assert old["isError"] is True and "needs protocol 2026-07-28" in old["content"][0]["text"]


async def test_tasks_methods_carry_the_task_id_in_mcp_name(client: MeshTestClient) -> None:
    task_id = (await result(client, "tools/call", {"name": "slow_compute", "arguments": {"seconds": 30}}))[
        "taskId"
    ]
    for method in ("tasks/get", "tasks/update", "tasks/cancel"):
        params = {"taskId": task_id, "inputResponses": {}}
        status, answer = await send(client, method, params, ELICITING_TASKS, headers={"Mcp-Name": "other"})
        assert status == 400 and answer["error"]["code"] == -32020, answer
        assert f"params.taskId ({task_id})" in answer["error"]["message"]
        body, headers = build_request(method, params, modern=True, name=None)
        body["params"]["_meta"][META_CLIENT_CAPABILITIES] = ELICITING_TASKS
        del headers["Mcp-Name"]
        missing = await client.http.post(client.path, json=body, headers=headers)
        assert missing.status_code == 400 and missing.json()["error"]["code"] == -32020
    assert (await result(client, "tasks/cancel", {"taskId": task_id}))["resultType"] == "complete"


def test_the_decorator_refuses_what_it_cannot_serve() -> None:
    from mesh_framework import mesh_tool

    with pytest.raises(ValueError, match='background must be True, False or "required"'):
        mesh_tool(background="always")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="applies to background tools only"):
        mesh_tool(prepare=lambda ctx, arguments: None)
