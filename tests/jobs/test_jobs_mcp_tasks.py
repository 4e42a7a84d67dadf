"""MCP's tasks extension (SEP-2663, protocol 2026-07-28) over background jobs, in process."""

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
from tests.apps.jobs_app import tools as jobs_tools


@pytest.fixture
async def client() -> AsyncIterator[MeshTestClient]:
    jobs_tools.GATES.clear()
    app = MeshApplication.load("tests.apps.jobs_app", environ={"MESH_REGISTRY__ENABLED": "false"})
    async with mesh_client(app) as client:
        yield client


async def send(
    client: MeshTestClient,
    method: str,
    params: dict[str, Any],
    *,
    declare: bool = True,
    token: str | None = None,
) -> dict[str, Any]:
    """One 2026-07-28 request, declaring the tasks extension (or not); the JSON-RPC answer."""
    body, headers = build_request(method, params, modern=True, name=params.get("name"))
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if declare:
        body["params"]["_meta"][META_CLIENT_CAPABILITIES] = {"extensions": {TASKS_EXTENSION: {}}}
    response = await client.http.post(client.path, json=body, headers=headers)
    message: dict[str, Any] = response.json()
    return message


async def settled(client: MeshTestClient, task_id: str) -> dict[str, Any]:
    for _ in range(2000):
        task = (await send(client, "tasks/get", {"taskId": task_id}))["result"]
        if task["status"] in ("completed", "failed", "cancelled"):
            return task
        await asyncio.sleep(0.005)
    raise AssertionError(f"task {task_id} did not settle")


async def test_the_extension_is_advertised_on_server_discover(client: MeshTestClient) -> None:
    discovered = await client.result("server/discover")
    assert discovered["capabilities"]["extensions"][TASKS_EXTENSION] == {}
    assert "tasks" not in discovered["capabilities"]


async def test_a_background_call_creates_a_task_and_tasks_get_inlines_the_result(
    client: MeshTestClient,
) -> None:
    created = (await send(client, "tools/call", {"name": "hold", "arguments": {"name": "t"}}))["result"]
    assert created["resultType"] == "task" and created["status"] == "working"
    assert {"taskId", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"} <= created.keys()
    assert not {"result", "error", "task", "ttl", "requestState"} & created.keys()
    for _ in range(2000):  # the body reports its message once it runs
        working = (await send(client, "tasks/get", {"taskId": created["taskId"]}))["result"]
        if "statusMessage" in working:
            break
        await asyncio.sleep(0.005)
    assert working["status"] == "working" and "result" not in working
    assert working["statusMessage"] == "waiting for t"
    jobs_tools.gate("t").set()
    done = await settled(client, created["taskId"])
    assert done["status"] == "completed" and done["result"]["structuredContent"] == {"released": "t"}
    # the same job, seen through the job tools
    row = await client.call_ok("__mesh_job_status", {"job_id": created["taskId"]})
    assert row["status"] == "completed"


async def test_a_body_that_raises_is_a_completed_task_with_a_tool_error(client: MeshTestClient) -> None:
    created = (await send(client, "tools/call", {"name": "broken", "arguments": {"reason": "x"}}))["result"]
    done = await settled(client, created["taskId"])
    assert done["status"] == "completed" and done["result"]["isError"] is True
    assert done["result"]["content"][0]["text"] == "RuntimeError: x"


async def test_cancel_acks_empty_also_when_the_task_already_ended(client: MeshTestClient) -> None:
    created = (await send(client, "tools/call", {"name": "hold", "arguments": {"name": "c"}}))["result"]
    for _ in range(2):  # running, then already cancelled: the same empty ack
        ack = (await send(client, "tasks/cancel", {"taskId": created["taskId"]}))["result"]
        assert ack["resultType"] == "complete" and not {"taskId", "status", "result"} & ack.keys()
    assert (await settled(client, created["taskId"]))["status"] == "cancelled"


async def test_without_the_extension_calls_stay_synchronous_and_tasks_methods_are_refused(
    client: MeshTestClient,
) -> None:
    plain = (await send(client, "tools/call", {"name": "quick", "arguments": {"n": 1}}, declare=False))[
        "result"
    ]
    assert plain["resultType"] == "complete" and "taskId" not in plain  # the job handle, a plain result
    for method in ("tasks/get", "tasks/cancel", "tasks/update"):
        error = (await send(client, method, {"taskId": "x"}, declare=False))["error"]
        assert error["code"] == -32021 and TASKS_EXTENSION in error["message"]
    unknown = (await send(client, "tasks/get", {"taskId": "no-such-task"}))["error"]
    assert unknown["code"] == -32602 and unknown["message"].startswith("Unknown taskId 'no-such-task'")


async def test_with_authorization_a_task_is_seen_only_by_the_client_that_created_it() -> None:
    tokens = [{"token": "tok-a", "client_id": "alice"}, {"token": "tok-b", "client_id": "bob"}]
    environ = {"MESH_REGISTRY__ENABLED": "false", "MESH_AUTH__TOKENS": json.dumps(tokens)}
    app = MeshApplication.load("tests.apps.jobs_app", environ=environ)
    async with mesh_client(app) as client:
        params = {"name": "hold", "arguments": {"name": "owned"}}
        created = (await send(client, "tools/call", params, token="tok-a"))["result"]
        assert (await send(client, "tasks/get", {"taskId": created["taskId"]}, token="tok-a"))["result"]
        for method in ("tasks/get", "tasks/cancel"):
            error = (await send(client, method, {"taskId": created["taskId"]}, token="tok-b"))["error"]
            assert error["code"] == -32602 and error["message"].startswith("Unknown taskId")
        await send(client, "tasks/cancel", {"taskId": created["taskId"]}, token="tok-a")
