"""Call-scoped beans beyond `@mesh_tool` and `@mesh_route`: in a served FastAPI app's `Bean(T)`, in a
`@mesh_llm(tools=[f])` local tool, in a background tool's job; and a prototype made for a call-scoped bean,
closed with the call. Every bean made and closed is logged in `EVENTS`; `CLOSED` is set when a session
closes, `gate(label)` holds the background job `label` until a test opens it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, FastAPI
from fastapi.responses import StreamingResponse

from mesh_framework import (
    MeshLlmAgent,
    bean,
    component,
    configuration,
    mesh_agent,
    mesh_llm,
    mesh_route,
    mesh_tool,
)
from mesh_framework.fastapi import Bean, serve

EVENTS: list[str] = []
CLOSED: dict[int, asyncio.Event] = {}
GATES: dict[str, asyncio.Event] = {}
STARTED: dict[str, asyncio.Event] = {}


def closed(session: int) -> asyncio.Event:
    """Set when session `session` has been closed."""
    return CLOSED.setdefault(session, asyncio.Event())


def gate(label: str) -> asyncio.Event:
    """The job `label` ends when a test sets this."""
    return GATES.setdefault(label, asyncio.Event())


def started(label: str) -> asyncio.Event:
    """Set when the job `label` has started its body."""
    return STARTED.setdefault(label, asyncio.Event())


@mesh_agent(name="beans-call-app", version="1.0.0")
class BeansCallApp:
    pass


@component(scope="prototype")
class Cursor:
    """A prototype: one per injection; made for a call-scoped bean, it is closed with the call."""

    made = 0

    def __init__(self) -> None:
        Cursor.made += 1
        self.id = Cursor.made
        EVENTS.append(f"open cursor {self.id}")

    def close(self) -> None:
        EVENTS.append(f"close cursor {self.id}")


class Session:
    made = 0

    def __init__(self, cursor: Cursor) -> None:
        Session.made += 1
        self.id = Session.made
        self.cursor = cursor
        self.notes: list[str] = []


@configuration
class Sessions:
    @bean(scope="call")
    async def session(self, cursor: Cursor) -> AsyncIterator[Session]:
        session = Session(cursor)
        EVENTS.append(f"open session {session.id}")
        yield session
        EVENTS.append(f"close session {session.id} {','.join(session.notes)}".rstrip())
        closed(session.id).set()


class Broken:
    pass


@configuration
class Failing:
    @bean(scope="call")
    def broken(self) -> Broken:
        raise RuntimeError("no connection to the store")


# -- a served FastAPI app --------------------------------------------------------------------------------

api = serve(FastAPI(title="beans-call"))


def session_id(session: Annotated[Session, Bean(Session)]) -> int:
    """A sub-dependency asking for the session too: the request's one instance."""
    return session.id


@api.get("/fa/session")
async def fa_session(
    session: Annotated[Session, Bean(Session)], via: Annotated[int, Depends(session_id)]
) -> dict[str, int]:
    EVENTS.append(f"request sees session {session.id}")
    return {"session": session.id, "same": int(via == session.id), "cursor": session.cursor.id}


@api.get("/fa/stream")
async def fa_stream(session: Annotated[Session, Bean(Session)]) -> StreamingResponse:
    async def lines() -> AsyncIterator[str]:
        for n in range(3):
            EVENTS.append(f"stream {n} in session {session.id}")
            yield f"{session.id}:{n}\n"

    return StreamingResponse(lines(), media_type="text/plain")


@api.get("/fa/broken")
async def fa_broken(broken: Annotated[Broken, Bean(Broken)]) -> str:
    return "unreachable"


@api.get("/fa/plain")
def fa_plain() -> dict[str, bool]:
    """Takes no bean: its request makes none."""
    return {"ok": True}


# -- a local tool of an LLM tool ---------------------------------------------------------------------------


def jot(text: str, session: Session) -> int:
    """Notes `text` in this model tool call's session."""
    session.notes.append(text)
    return session.id


@mesh_tool(capability="scribe")
@mesh_llm(provider="openai/gpt-fake", tools=[jot])
async def scribe(question: str, llm: MeshLlmAgent) -> str:
    return str(await llm(question))


@mesh_route("/api/scribe")
@mesh_llm(provider="openai/gpt-fake", tools=[jot])
async def scribe_route(question: str, llm: MeshLlmAgent) -> dict[str, str]:
    """The same local tool on an LLM route."""
    return {"answer": str(await llm(question))}


# -- a background tool --------------------------------------------------------------------------------------


@mesh_tool(background=True)
async def archive(label: str, session: Session) -> dict[str, int | str]:
    """Runs as a job: its session is opened when the job runs and closed when the body ends."""
    session.notes.append(label)
    EVENTS.append(f"job runs in session {session.id}")
    started(label).set()
    await gate(label).wait()
    return {"label": label, "session": session.id}
