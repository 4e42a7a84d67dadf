"""Call-scoped beans beyond `@mesh_tool` and `@mesh_route`: a served FastAPI app's `Bean(T)` (one per
request, closed once the answer is sent), a `@mesh_llm(tools=[f])` local tool (one per call the model
makes), a background tool (the scope opens when the job runs and closes when it ends), and a prototype made
for a call-scoped bean, closed with the call."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest

from mesh_framework import MeshApplication
from mesh_framework.llm.model import LlmModel
from mesh_framework.testing import MeshTestClient, ScriptedLlm, mesh_client
from tests.apps import beans_call_app as beans

call = ScriptedLlm.call


def load() -> MeshApplication:
    return MeshApplication.load("tests.apps.beans_call_app", environ={})


@pytest.fixture
async def client() -> AsyncIterator[MeshTestClient]:
    async with mesh_client(load()) as started:
        yield started


def since(mark: int) -> list[str]:
    return beans.EVENTS[mark:]


async def test_a_fastapi_request_has_its_own_call_scoped_bean_closed_after_the_answer(
    client: MeshTestClient,
) -> None:
    mark = len(beans.EVENTS)
    first = await client.http.get("/fa/session")
    second = await client.http.get("/fa/session")
    assert first.status_code == 200 and second.status_code == 200
    one, two = first.json(), second.json()
    assert one["same"] == 1 and two["same"] == 1  # the route and its sub-dependency share the instance
    assert two["session"] != one["session"]
    s1, c1 = one["session"], one["cursor"]
    assert since(mark)[:5] == [
        f"open cursor {c1}",  # the prototype made for the session
        f"open session {s1}",
        f"request sees session {s1}",
        f"close session {s1}",  # the request's scope ended once the answer was sent
        f"close cursor {c1}",  # the prototype made inside the call closes with it, after its user
    ]
    mark = len(beans.EVENTS)
    plain = await client.http.get("/fa/plain")
    assert plain.json() == {"ok": True} and since(mark) == []  # a route that takes no bean makes none


async def test_a_streamed_fastapi_answer_keeps_its_bean_until_the_last_line(client: MeshTestClient) -> None:
    mark = len(beans.EVENTS)
    answer = await client.http.get("/fa/stream")
    assert answer.status_code == 200
    session = int(answer.text.split(":")[0])
    assert answer.text.splitlines() == [f"{session}:0", f"{session}:1", f"{session}:2"]
    assert since(mark)[1:] == [
        f"open session {session}",
        f"stream 0 in session {session}",
        f"stream 1 in session {session}",
        f"stream 2 in session {session}",
        f"close session {session}",
        since(mark)[-1],  # its cursor
    ]
    assert since(mark)[-1].startswith("close cursor")


async def test_a_call_scoped_bean_that_fails_answers_a_clear_500(
    client: MeshTestClient, caplog: pytest.LogCaptureFixture
) -> None:
    answer = await client.http.get("/fa/broken")
    assert answer.status_code == 500
    assert answer.json() == {
        "error": "internal_error",
        "detail": "bean 'broken' could not be made for this request; the agent's log has the cause",
    }
    logged = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert [r.getMessage() for r in logged] == [
        "the FastAPI app tests.apps.beans_call_app.api (mounted at /): making call-scoped bean 'broken' for "
        "/fa/broken raised"
    ]


async def test_a_fastapi_call_scoped_bean_is_overridden_like_any_other() -> None:
    class FakeCursor:
        id = 0

    class FakeSession:
        id = 77
        cursor = FakeCursor()

    app = load()
    with app.override(beans.Session, FakeSession()):
        async with mesh_client(app) as client:
            answer = await client.http.get("/fa/session")
    assert answer.json() == {"session": 77, "same": 1, "cursor": 0}


async def test_each_call_the_model_makes_to_a_local_tool_has_its_own_session() -> None:
    model = ScriptedLlm([call("jot", text="a"), [call("jot", text="b"), call("jot", text="c")], "noted"])
    app = load()
    mark = len(beans.EVENTS)
    with app.override(LlmModel, model):
        async with mesh_client(app) as client:
            assert await client.call_ok("scribe", {"question": "note a, b and c"}) == "noted"
    sessions = [int(r) for r in model.requests[1].tool_results() + model.requests[2].tool_results()]
    assert len(set(sessions)) == 3  # one session per call the model made
    closes = sorted(e for e in since(mark) if e.startswith("close session"))
    assert closes == sorted(
        f"close session {s} {text}" for s, text in zip(sessions, ("a", "b", "c"), strict=True)
    )
    opened = [e for e in since(mark) if e.startswith("open session")]
    assert len(opened) == 3  # the LLM tool itself takes no session: its call opens none


async def test_a_local_tool_of_an_llm_route_has_its_own_session_per_call() -> None:
    model = ScriptedLlm([call("jot", text="x"), "noted"])
    app = load()
    mark = len(beans.EVENTS)
    with app.override(LlmModel, model):
        async with mesh_client(app) as client:
            answer = await client.http.get("/api/scribe", params={"question": "note x"})
    assert answer.status_code == 200 and answer.json() == {"answer": "noted"}
    [session] = [int(r) for r in model.requests[1].tool_results()]
    assert [e for e in since(mark) if "session" in e] == [
        f"open session {session}",
        f"close session {session} x",
    ]


async def test_a_background_tool_s_scope_opens_when_the_job_runs_and_closes_when_it_ends(
    client: MeshTestClient,
) -> None:
    mark = len(beans.EVENTS)
    handle = await client.call_ok("archive", {"label": "nightly"})
    await asyncio.wait_for(beans.started("nightly").wait(), 10)
    [session] = [int(e.split()[-1]) for e in since(mark) if e.startswith("job runs in session")]
    assert not beans.closed(session).is_set()  # open while the job runs, though the call has answered
    beans.gate("nightly").set()
    await asyncio.wait_for(beans.closed(session).wait(), 10)
    events = since(mark)
    cursor = events[0].split()[-1]
    assert events == [
        f"open cursor {cursor}",
        f"open session {session}",  # once: the call that answered the handle opened no scope
        f"job runs in session {session}",
        f"close session {session} nightly",
        f"close cursor {cursor}",
    ]
    outcome = await client.call_ok("__mesh_job_result", {"job_id": handle["job_id"]})
    assert outcome["result"] == {"label": "nightly", "session": session}
