"""Protocol 2025-11-25's experimental tasks (handshake era) over background and task tools, in process."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from mesh_framework import MeshApplication
from mesh_framework.testing import MeshTestClient, mesh_client
from tests.apps.jobs_app import tools as jobs_tools

VERSION = "2025-11-25"
RELATED_TASK = "io.modelcontextprotocol/related-task"
TERMINAL = ("completed", "failed", "cancelled")


def load() -> MeshApplication:
    jobs_tools.GATES.clear()
    return MeshApplication.load("tests.apps.jobs_app", environ={"MESH_REGISTRY__ENABLED": "false"})


@pytest.fixture
async def client() -> AsyncIterator[MeshTestClient]:
    async with mesh_client(load()) as client:
        yield client


async def send(
    client: MeshTestClient,
    method: str,
    params: dict[str, Any] | None = None,
    *,
    version: str | None = VERSION,
    token: str | None = None,
) -> dict[str, Any]:
    """One handshake-era request, as a client that negotiated `version` sends it; the JSON-RPC answer."""
    headers = {"Accept": "application/json, text/event-stream"}
    if version is not None:
        headers["MCP-Protocol-Version"] = version
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    response = await client.http.post(client.path, json=body, headers=headers)
    message: dict[str, Any] = response.json()
    return message


async def create(client: MeshTestClient, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    answer = await send(client, "tools/call", {"name": tool, "arguments": arguments, "task": {"ttl": 60000}})
    assert "result" in answer, answer
    task: dict[str, Any] = answer["result"]["task"]
    return task


async def settled(client: MeshTestClient, task_id: str) -> dict[str, Any]:
    for _ in range(2000):
        task = (await send(client, "tasks/get", {"taskId": task_id}))["result"]
        if task["status"] in TERMINAL:
            return task
        await asyncio.sleep(0.005)
    raise AssertionError(f"task {task_id} did not settle")


async def test_initialize_declares_tasks_for_2025_11_25_only(client: MeshTestClient) -> None:
    params = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    answer = (await send(client, "initialize", params, version=None))["result"]
    assert answer["protocolVersion"] == VERSION
    assert answer["capabilities"]["tasks"] == {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
    older = await send(client, "initialize", {**params, "protocolVersion": "2025-06-18"}, version=None)
    assert "tasks" not in older["result"]["capabilities"]


async def test_tools_list_says_which_tools_run_as_tasks(client: MeshTestClient) -> None:
    tools = {t["name"]: t for t in (await send(client, "tools/list"))["result"]["tools"]}
    assert tools["hold"]["execution"] == {"taskSupport": "optional"}  # background
    assert tools["plan"]["execution"] == {"taskSupport": "optional"}  # MCP Mesh task tool
    assert "execution" not in tools["plan_via_job"]  # an ordinary tool: forbidden, the default
    assert "execution" not in tools["__mesh_job_status"]
    older = {
        t["name"]: t for t in (await send(client, "tools/list", version="2025-06-18"))["result"]["tools"]
    }
    assert "execution" not in older["hold"]
    # one outputSchema describes both answers: the handle of a plain call, the body's result of a task
    schema = tools["hold"]["outputSchema"]
    assert schema["type"] == "object" and schema["anyOf"][0]["required"] == ["job_id", "status"]


async def test_a_task_runs_is_polled_and_its_result_read(client: MeshTestClient) -> None:
    answer = await send(client, "tools/call", {"name": "hold", "arguments": {"name": "a"}, "task": {}})
    created = answer["result"]
    task = created["task"]
    assert task["status"] == "working" and task["pollInterval"] > 0 and task["ttl"] == 3_600_000
    assert task["createdAt"].endswith("Z") and task["lastUpdatedAt"].endswith("Z")
    assert task["taskId"] in created["_meta"]["io.modelcontextprotocol/model-immediate-response"]
    assert "content" not in created  # the outcome comes from tasks/result
    for _ in range(2000):
        working = (await send(client, "tasks/get", {"taskId": task["taskId"]}))["result"]
        if working.get("statusMessage") == "waiting for a":
            break
        await asyncio.sleep(0.005)
    assert working["status"] == "working" and working["statusMessage"] == "waiting for a"
    pending = asyncio.ensure_future(send(client, "tasks/result", {"taskId": task["taskId"]}))
    await asyncio.sleep(0.05)
    assert not pending.done()  # tasks/result waits for the task to end
    jobs_tools.gate("a").set()
    result = (await asyncio.wait_for(pending, 10))["result"]
    assert result["structuredContent"] == {"released": "a"} and result["isError"] is False
    assert result["_meta"][RELATED_TASK] == {"taskId": task["taskId"]}
    done = (await send(client, "tasks/get", {"taskId": task["taskId"]}))["result"]
    assert done["status"] == "completed" and RELATED_TASK not in done.get("_meta", {})
    # the same job, seen through the job tools
    assert (await client.call_ok("__mesh_job_status", {"job_id": task["taskId"]}))["status"] == "completed"


async def test_a_plain_call_still_answers_the_job_handle(client: MeshTestClient) -> None:
    handle = (await send(client, "tools/call", {"name": "quick", "arguments": {"n": 2}}))["result"]
    assert handle["structuredContent"]["status"] in ("working", "completed") and "task" not in handle


async def test_a_task_tool_runs_as_a_local_job_when_asked_for_a_task(client: MeshTestClient) -> None:
    task = await create(client, "plan", {"city": "Oslo"})
    result = (await send(client, "tasks/result", {"taskId": task["taskId"]}))["result"]
    assert result["structuredContent"] == {"city": "Oslo", "as_job": True}  # its MeshJob slot was filled
    inline = (await send(client, "tools/call", {"name": "plan", "arguments": {"city": "Oslo"}}))["result"]
    assert inline["structuredContent"] == {"city": "Oslo", "as_job": False}  # a plain call stays inline


async def test_a_tool_error_fails_the_task_and_tasks_result_answers_it(client: MeshTestClient) -> None:
    task = await create(client, "broken", {"reason": "disk full"})
    failed = await settled(client, task["taskId"])
    assert failed["status"] == "failed" and failed["statusMessage"] == "RuntimeError: disk full"
    result = (await send(client, "tasks/result", {"taskId": task["taskId"]}))["result"]
    assert result["isError"] is True and result["content"][0]["text"] == "RuntimeError: disk full"
    assert result["_meta"][RELATED_TASK] == {"taskId": task["taskId"]}


async def test_bad_arguments_fail_the_task_with_the_error_a_plain_call_answers(
    client: MeshTestClient,
) -> None:
    task = await create(client, "quick", {"n": "not a number"})
    assert task["status"] == "failed" and "n" in task["statusMessage"]
    result = (await send(client, "tasks/result", {"taskId": task["taskId"]}))["result"]
    plain = (await send(client, "tools/call", {"name": "quick", "arguments": {"n": "not a number"}}))[
        "result"
    ]
    assert result["isError"] is True and result["content"] == plain["content"]


async def test_cancel_moves_a_task_to_cancelled_and_refuses_an_ended_one(client: MeshTestClient) -> None:
    task = await create(client, "hold", {"name": "never"})
    cancelled = (await send(client, "tasks/cancel", {"taskId": task["taskId"]}))["result"]
    assert cancelled["taskId"] == task["taskId"] and cancelled["status"] == "cancelled"
    again = (await send(client, "tasks/cancel", {"taskId": task["taskId"]}))["error"]
    assert again["code"] == -32602 and "already in terminal status 'cancelled'" in again["message"]
    result = (await send(client, "tasks/result", {"taskId": task["taskId"]}))["result"]
    assert result["isError"] is True and "cancelled by the client" in result["content"][0]["text"]
    done = await create(client, "quick", {"n": 1})
    await settled(client, done["taskId"])
    refused = (await send(client, "tasks/cancel", {"taskId": done["taskId"]}))["error"]
    assert refused["code"] == -32602 and "'completed'" in refused["message"]


async def test_unknown_ids_and_methods(client: MeshTestClient) -> None:
    for method in ("tasks/get", "tasks/result", "tasks/cancel"):
        error = (await send(client, method, {"taskId": "no-such-task"}))["error"]
        assert error["code"] == -32602 and "'no-such-task'" in error["message"]
    assert (await send(client, "tasks/get", {}))["error"]["code"] == -32602
    assert (await send(client, "tasks/update", {"taskId": "x"}))["error"]["code"] == -32601


async def test_a_task_of_a_tool_that_forbids_it_is_method_not_found(client: MeshTestClient) -> None:
    params = {"name": "plan_via_job", "arguments": {"city": "x"}, "task": {}}
    error = (await send(client, "tools/call", params))["error"]
    assert error["code"] == -32601 and "plan_via_job" in error["message"]
    malformed = (await send(client, "tools/call", {"name": "quick", "arguments": {"n": 1}, "task": 5}))[
        "error"
    ]
    assert malformed["code"] == -32602 and "params.task must be an object" in malformed["message"]


async def test_tasks_list_pages_through_every_task(client: MeshTestClient) -> None:
    created = [(await create(client, "quick", {"n": i}))["taskId"] for i in range(60)]
    first = (await send(client, "tasks/list"))["result"]
    assert len(first["tasks"]) == 50 and "nextCursor" in first
    second = (await send(client, "tasks/list", {"cursor": first["nextCursor"]}))["result"]
    assert "nextCursor" not in second
    listed = [t["taskId"] for t in first["tasks"] + second["tasks"]]
    assert listed == created  # in the order they were created, none twice
    bad = (await send(client, "tasks/list", {"cursor": "bm8tc3VjaC10YXNr"}))["error"]
    assert bad["code"] == -32602 and "Invalid cursor" in bad["message"]


async def test_a_task_over_the_job_limit_fails_at_once_naming_the_running_job() -> None:
    async with mesh_client(load()) as client:
        running = await create(client, "exclusive", {"name": "first"})  # max_concurrent=1
        refused = await create(client, "exclusive", {"name": "second"})
        assert refused["status"] == "failed"
        assert f"job {running['taskId']} ('exclusive'" in refused["statusMessage"]
        result = (await send(client, "tasks/result", {"taskId": refused["taskId"]}))["result"]
        assert result["isError"] is True and "jobs.queue: true" in result["content"][0]["text"]
        jobs_tools.gate("first").set()
        assert (await settled(client, running["taskId"]))["status"] == "completed"


async def test_an_agent_without_job_tools_ignores_the_task_field() -> None:
    app = MeshApplication.load("tests.apps.wiring_ok", environ={"MESH_REGISTRY__ENABLED": "false"})
    async with mesh_client(app) as client:
        params = {"protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
        assert (
            "tasks" not in (await send(client, "initialize", params, version=None))["result"]["capabilities"]
        )
        tools = (await send(client, "tools/list"))["result"]["tools"]
        assert tools and all("execution" not in t for t in tools)
        answer = await send(client, "tools/call", {"name": "price", "arguments": {"net": 10}, "task": {}})
        assert "task" not in answer["result"]  # processed as a plain call, as the specification says
        assert (await send(client, "tasks/get", {"taskId": "x"}))["error"]["code"] == -32601


async def test_with_authorization_a_task_is_seen_only_by_the_client_that_created_it() -> None:
    tokens = [{"token": "tok-a", "client_id": "alice"}, {"token": "tok-b", "client_id": "bob"}]
    environ = {"MESH_REGISTRY__ENABLED": "false", "MESH_AUTH__TOKENS": json.dumps(tokens)}
    jobs_tools.GATES.clear()
    app = MeshApplication.load("tests.apps.jobs_app", environ=environ)
    async with mesh_client(app) as client:
        params = {"name": "hold", "arguments": {"name": "mine"}, "task": {}}
        task = (await send(client, "tools/call", params, token="tok-a"))["result"]["task"]
        mine = await send(client, "tasks/get", {"taskId": task["taskId"]}, token="tok-a")
        assert mine["result"]["status"] == "working"
        for method in ("tasks/get", "tasks/result", "tasks/cancel"):  # to bob, it does not exist
            error = (await send(client, method, {"taskId": task["taskId"]}, token="tok-b"))["error"]
            assert error["code"] == -32602 and "Failed to retrieve task" in error["message"]
        assert (await send(client, "tasks/list", token="tok-b"))["result"]["tasks"] == []
        listed = (await send(client, "tasks/list", token="tok-a"))["result"]["tasks"]
        assert [t["taskId"] for t in listed] == [task["taskId"]]
        cancelled = await send(client, "tasks/cancel", {"taskId": task["taskId"]}, token="tok-a")
        assert cancelled["result"]["status"] == "cancelled"
