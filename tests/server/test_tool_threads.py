"""Sync tools in worker threads (mesh_framework/tools/threads.py): what the call path puts in the context
reaches the body, results and exceptions come back, blocked bodies get threads of their own, a body that
outlives its timeout leaves the pool serving, and the pool works from several event loops."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest

from mesh_framework import MeshApplication, mesh_tool
from mesh_framework.testing import MeshTestClient, mesh_client
from mesh_framework.testing.client import build_request, result_of
from mesh_framework.tools.threads import WorkerThreads
from tests.apps import sync_tools_app
from tests.server.test_wrapper import wrap

CALLER: contextvars.ContextVar[str] = contextvars.ContextVar("test_tool_threads_caller", default="unset")


def add(a: int, b: int) -> int:
    return a + b


def read_and_set() -> tuple[str, str]:
    seen = CALLER.get()
    CALLER.set("set in the thread")
    return seen, threading.current_thread().name


async def test_the_body_sees_the_callers_context_and_its_own_changes_stay_in_the_thread() -> None:
    pool = WorkerThreads(4)
    CALLER.set("the caller's")
    seen, thread = await pool.submit(read_and_set, {})
    assert seen == "the caller's"
    assert thread != threading.current_thread().name
    assert CALLER.get() == "the caller's"
    assert await pool.submit(add, {"a": 20, "b": 22}) == 42


def fail(kind: str) -> None:
    if kind == "stop":
        raise StopIteration("done")
    raise ValueError(f"bad {kind}")


async def test_exceptions_reach_the_caller_and_stop_iteration_becomes_a_runtime_error() -> None:
    pool = WorkerThreads(2)
    with pytest.raises(ValueError, match="bad input"):
        await pool.submit(fail, {"kind": "input"})
    with pytest.raises(RuntimeError, match="StopIteration"):
        await pool.submit(fail, {"kind": "stop"})
    assert await pool.submit(add, {"a": 1, "b": 2}) == 3  # the drain that refused StopIteration goes on


async def test_bodies_blocked_on_each_other_get_a_thread_each() -> None:
    """Four bodies that return only once all four run at once: the pool starts a thread for each call
    that waits while the running ones make no progress (one thread would wait until the barrier breaks)."""
    pool = WorkerThreads(8)
    barrier = threading.Barrier(4, timeout=30)
    results = await asyncio.gather(*[pool.submit(barrier.wait, {}) for _ in range(4)])
    assert sorted(results) == [0, 1, 2, 3]
    assert pool.threads >= 4


async def test_a_burst_of_short_calls_is_served_and_the_pool_stays_within_its_bound() -> None:
    pool = WorkerThreads(3)
    for _ in range(20):
        results = await asyncio.gather(*[pool.submit(add, {"a": n, "b": 1}) for n in range(16)])
        assert results == [n + 1 for n in range(16)]
    assert 1 <= pool.threads <= 3


@mesh_tool(timeout=0.2)
def waits_for_release(label: str) -> str:
    """Blocks until the test sets RELEASE: a sync body that outlives its timeout."""
    RELEASE.wait(timeout=60)
    return label


RELEASE = threading.Event()


async def test_a_sync_body_past_its_timeout_answers_the_timeout_and_the_pool_serves_on() -> None:
    wrappers = wrap(waits_for_release)
    RELEASE.clear()
    try:
        result = await wrappers.get("waits_for_release").call({"label": "late"})
        assert result["isError"] is True
        assert "timed out after 0.2s" in result["content"][0]["text"]
    finally:
        RELEASE.set()
    result = await wrappers.get("waits_for_release").call({"label": "on time"})
    assert result["structuredContent"] == {"result": "on time"}


def test_the_pool_serves_several_event_loops_one_after_another_and_at_once() -> None:
    pool = WorkerThreads(4)

    async def one(n: int) -> int:
        return int(await pool.submit(add, {"a": n, "b": 1}))

    assert asyncio.run(one(1)) == 2  # a loop that ended, with what it armed on it
    assert asyncio.run(one(2)) == 3
    answers: list[int] = []
    threads = [threading.Thread(target=lambda n=n: answers.append(asyncio.run(one(n)))) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(answers) == [1, 2, 3, 4]


# -- through a served app: what the call path sets --------------------------------------------------------


@pytest.fixture
async def client() -> AsyncIterator[MeshTestClient]:
    app = MeshApplication.load(
        "tests.apps.sync_tools_app",
        environ={"MESH_LOGGING__FORMAT": "json", "MCP_MESH_PROPAGATE_HEADERS": "x-tenant"},
    )
    async with mesh_client(app) as started:
        yield started


async def call_with_headers(client: MeshTestClient, tool: str) -> dict[str, Any]:
    body, headers = build_request("tools/call", {"name": tool, "arguments": {}}, modern=True, name=tool)
    headers |= {"X-Tenant": "acme", "X-Mesh-Timeout": "30", "X-Request-ID": f"req-{tool}"}
    answer = await client.http.post(client.path, json=body, headers=headers)
    result = result_of(answer, "tools/call")
    assert result["isError"] is False, result
    return result["structuredContent"]  # type: ignore[no-any-return]


async def test_a_sync_tool_sees_what_its_async_twin_sees(client: MeshTestClient) -> None:
    sync = await call_with_headers(client, "seen_sync")
    again = await call_with_headers(client, "seen_sync")
    assert sync_tools_app.SET_IN_BODY.get() == ""  # what the sync bodies set stayed in their threads
    twin = await call_with_headers(client, "seen_async")
    assert sync["thread"] != twin["thread"]  # the sync body ran in a worker thread
    assert sync["headers"] == twin["headers"] == {"x-tenant": "acme", "x-mesh-timeout": "30"}
    assert sync["has_deadline"] is twin["has_deadline"] is True
    assert sync["call"] == ["seen_sync", "req-seen_sync"]
    assert twin["call"] == ["seen_async", "req-seen_async"]
    assert len({sync["visit"], again["visit"], twin["visit"]}) == 3  # a call-scoped bean per call
    assert sync["set_before"] == again["set_before"] == ""  # what an earlier body set stayed in it
