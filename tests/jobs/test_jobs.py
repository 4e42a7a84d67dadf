"""Background tools on one agent, in process: handles, status, results, cancel, limits, retention."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from mesh_framework import MeshApplication
from mesh_framework.testing import MeshTestClient, mesh_client
from tests.apps.jobs_app import tools as jobs_tools


def load(**cli: Any) -> MeshApplication:
    return MeshApplication.load("tests.apps.jobs_app", environ={"MESH_REGISTRY__ENABLED": "false"}, cli=cli)


@pytest.fixture
async def client() -> AsyncIterator[MeshTestClient]:
    jobs_tools.GATES.clear()
    async with mesh_client(load()) as client:
        yield client


async def start(client: MeshTestClient, tool: str, arguments: dict[str, Any]) -> str:
    result = await client.call_tool(tool, arguments)
    assert result["isError"] is False, result
    handle = result["structuredContent"]
    assert handle["status"] in ("working", "queued") and handle["tool"] == tool
    assert handle["poll"]["status"] == "__mesh_job_status"
    return str(handle["job_id"])


async def status(client: MeshTestClient, job_id: str) -> dict[str, Any]:
    row: dict[str, Any] = await client.call_ok("__mesh_job_status", {"job_id": job_id})
    return row


async def finished(client: MeshTestClient, job_id: str) -> dict[str, Any]:
    """Poll `__mesh_job_result` until the job ends (bounded: 2,000 polls)."""
    import asyncio

    for _ in range(2000):
        outcome: dict[str, Any] = await client.call_ok("__mesh_job_result", {"job_id": job_id})
        if outcome["status"] in ("completed", "failed", "cancelled"):
            return outcome
        await asyncio.sleep(0.005)
    raise AssertionError(f"job {job_id} did not finish")


async def test_job_tools_are_listed_and_the_job_parameter_is_hidden(client: MeshTestClient) -> None:
    tools = {t["name"]: t for t in await client.list_tools()}
    for name in ("__mesh_job_status", "__mesh_job_result", "__mesh_job_cancel", "get_server_status"):
        assert name in tools
    assert set(tools["hold"]["inputSchema"]["properties"]) == {"name"}
    handle_schema, body_schema = tools["hold"]["outputSchema"]["anyOf"]  # a plain call, an MCP task
    assert handle_schema["required"] == ["job_id", "status"]
    assert body_schema["additionalProperties"] == {"type": "string"}
    assert set(tools["plan"]["inputSchema"]["properties"]) == {"city"}
    assert tools["__mesh_job_cancel"]["inputSchema"]["required"] == ["job_id"]


async def test_a_background_call_answers_a_handle_then_the_job_reports_and_completes(
    client: MeshTestClient,
) -> None:
    job_id = await start(client, "hold", {"name": "a"})
    row = await status(client, job_id)
    assert row["status"] == "working" and row["tool"] == "hold"
    early = await client.call_ok("__mesh_job_result", {"job_id": job_id})  # a running job: no result yet
    assert early == {"status": "working", "result": None, "error": None}
    summary = await client.call_ok("get_server_status")
    assert summary["status"] == "running" and summary["command"] == "hold name=a"
    jobs_tools.gate("a").set()
    outcome = await finished(client, job_id)
    assert outcome == {"status": "completed", "result": {"released": "a"}, "error": None}
    row = await status(client, job_id)
    assert row["progress"] == 1.0 and row["messages"] == ["waiting for a", "released"]
    summary = await client.call_ok("get_server_status")
    assert summary["status"] == "completed" and summary["messages"][-1] == "released"


async def test_a_sync_body_prints_into_the_job_messages(client: MeshTestClient) -> None:
    job_id = await start(client, "shout", {"text": "hi", "times": 3})
    outcome = await finished(client, job_id)
    assert outcome["result"] == {"result": "HI"}
    assert (await status(client, job_id))["messages"] == ["1: HI", "2: HI", "3: HI"]


async def test_a_failing_body_ends_failed_with_its_error(client: MeshTestClient) -> None:
    job_id = await start(client, "broken", {"reason": "disk full"})
    assert await finished(client, job_id) == {
        "status": "failed",
        "result": None,
        "error": "RuntimeError: disk full",
    }


async def test_cancel_stops_a_running_job_and_a_finished_one_cannot_be_cancelled(
    client: MeshTestClient,
) -> None:
    async_job = await start(client, "hold", {"name": "never"})
    sync_job = await start(client, "spin", {})
    for job_id in (async_job, sync_job):
        answer = await client.call_ok("__mesh_job_cancel", {"job_id": job_id, "reason": "operator"})
        assert answer == {"ok": True, "job_id": job_id}
        outcome = await finished(client, job_id)
        assert outcome["status"] == "cancelled" and outcome["error"] == "cancelled: operator"
    again = await client.call_tool("__mesh_job_cancel", {"job_id": async_job})
    assert again["isError"] is True
    text = again["content"][0]["text"]
    assert f"Job {async_job} already finished (cancelled)" in text and "\n" not in text


async def test_an_unknown_job_id_is_a_one_line_error(client: MeshTestClient) -> None:
    for tool in ("__mesh_job_status", "__mesh_job_result", "__mesh_job_cancel"):
        result = await client.call_tool(tool, {"job_id": "no-such-job"})
        assert result["isError"] is True
        text = result["content"][0]["text"]
        assert text.startswith("Unknown job id 'no-such-job'") and "\n" not in text


async def test_a_call_over_the_tool_limit_is_rejected_naming_the_running_job(client: MeshTestClient) -> None:
    first = await start(client, "exclusive", {"name": "x"})
    second = await client.call_tool("exclusive", {"name": "y"})
    assert second["isError"] is True
    text = second["content"][0]["text"]
    assert f"job {first} ('exclusive'" in text and "jobs.queue: true" in text
    jobs_tools.gate("x").set()
    assert (await finished(client, first))["status"] == "completed"
    third = await start(client, "exclusive", {"name": "x"})  # room again
    assert (await finished(client, third))["result"] == {"result": "x"}


async def test_with_jobs_queue_a_call_over_the_limit_waits_its_turn() -> None:
    jobs_tools.GATES.clear()
    async with mesh_client(load(**{"jobs.queue": True})) as client:
        first = await start(client, "exclusive", {"name": "q1"})
        second = await start(client, "exclusive", {"name": "q2"})
        assert (await status(client, second))["status"] == "queued"
        jobs_tools.gate("q2").set()
        jobs_tools.gate("q1").set()
        assert (await finished(client, first))["result"] == {"result": "q1"}
        assert (await finished(client, second))["result"] == {"result": "q2"}


async def test_a_thousand_jobs_in_a_loop_stay_bounded() -> None:
    app = load(**{"jobs.max_concurrent": 8, "jobs.retention.max_count": 50})
    async with mesh_client(app) as client:
        started = rejected = 0
        for n in range(1000):
            result = await client.call_tool("quick", {"n": n})
            if result["isError"]:
                assert "jobs.max_concurrent is 8" in result["content"][0]["text"]
                rejected += 1
            else:
                started += 1
        runner = app.container.job_service().runner
        assert started + rejected == 1000 and started > 0
        assert runner.running <= 8
        assert len(runner.store) <= 50 + 8  # finished jobs beyond the retention are dropped


async def test_a_task_tool_called_plainly_runs_inline_without_a_job(client: MeshTestClient) -> None:
    assert await client.call_ok("plan", {"city": "Oslo"}) == {"city": "Oslo", "as_job": False}


async def test_a_job_past_its_timeout_fails_naming_the_limit(client: MeshTestClient) -> None:
    job_id = await start(client, "sleepy", {})
    outcome = await finished(client, job_id)
    assert outcome == {"status": "failed", "result": None, "error": "Tool 'sleepy' timed out after 0.2s"}


async def test_a_queued_job_can_be_cancelled_before_it_starts() -> None:
    jobs_tools.GATES.clear()
    async with mesh_client(load(**{"jobs.queue": True, "jobs.max_queued": 1})) as client:
        running = await start(client, "exclusive", {"name": "r"})
        queued = await start(client, "exclusive", {"name": "never-runs"})
        full = await client.call_tool("exclusive", {"name": "third"})  # the queue holds one
        assert full["isError"] is True and f"job {running}" in full["content"][0]["text"]
        assert await client.call_ok("__mesh_job_cancel", {"job_id": queued}) == {"ok": True, "job_id": queued}
        jobs_tools.gate("r").set()
        assert (await finished(client, running))["status"] == "completed"
        assert (await status(client, queued))["status"] == "cancelled"  # and it never started
        assert (await status(client, queued))["runtime_seconds"] == 0.0


def test_finished_jobs_older_than_the_retention_age_are_dropped() -> None:
    import time

    from mesh_framework.jobs import Job
    from mesh_framework.jobs.store import JobStore, UnknownJobError

    store = JobStore(max_count=10, max_age=60)
    old, recent, running = (Job(id=i, tool="t", capability="t") for i in ("old", "recent", "running"))
    for job in (old, recent, running):
        store.add(job)
    old.status = recent.status = "completed"
    old.finished_at, recent.finished_at = time.time() - 120, time.time()
    store.finished(old)
    store.finished(recent)
    assert [j.id for j in store] == ["recent", "running"]
    with pytest.raises(UnknownJobError, match="Unknown job id 'old'"):
        store.get("old")


async def test_a_per_tool_limit_from_the_settings_applies() -> None:
    jobs_tools.GATES.clear()
    async with mesh_client(load(**{"jobs.tools": {"hold": 1}})) as client:
        first = await start(client, "hold", {"name": "p"})
        second = await client.call_tool("hold", {"name": "p"})
        assert second["isError"] is True
        assert (
            "the limit of tool 'hold' is 1" in second["content"][0]["text"]
            and first in second["content"][0]["text"]
        )
        await start(client, "shout", {"text": "other tools still run"})
        jobs_tools.gate("p").set()
        assert (await finished(client, first))["status"] == "completed"


def test_claims_wait_for_required_dependencies() -> None:
    from mesh_framework.jobs.service import _dependencies_resolved

    app = load()
    app.build()
    tools = app.container.tools()
    assert _dependencies_resolved(tools.get("plan")) is True  # no dependencies
    consumer = tools.get("plan_via_job")  # needs `plan`, unresolved until a registry answers
    assert _dependencies_resolved(consumer) is False
    consumer.update_dependency(0, object())  # type: ignore[arg-type]
    assert _dependencies_resolved(consumer) is True
