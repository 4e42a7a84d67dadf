"""Tools: plain functions (sync and async), the methods of a component, one using a catalog server through
a client bean (clients.py), one asking an LLM (its answer streams), one running in the background and one
telling who called."""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from mesh_framework import (
    JobContext,
    MeshLlmAgent,
    Stream,
    ToolContext,
    component,
    mesh_llm,
    mesh_tool,
)

from .clients import Notes
from .greeting import GreetingService


class Greeting(BaseModel):
    text: str
    part_of_day: str
    greeted_so_far: int


@component
class GreetingTools:
    def __init__(self, service: GreetingService) -> None:
        self.service = service

    @mesh_tool(capability="greeting", tags=["demo"])
    def greet(self, name: Annotated[str, Field(description="Who to greet")]) -> Greeting:
        """Greet someone by name (a sync tool: it runs in a worker thread)."""
        return Greeting(
            text=self.service.greet(name),
            part_of_day=self.service.part_of_day(),
            greeted_so_far=self.service.greeted,
        )


@mesh_tool(capability="add", tags=["math"])
async def add(
    a: Annotated[int, Field(description="First addend")],
    b: Annotated[int, Field(description="Second addend")],
) -> int:
    """Add two integers (an async tool: it runs on the event loop)."""
    return a + b


@mesh_tool(capability="jot", tags=["notes"])
async def jot(text: Annotated[str, Field(description="What to remember")], notes: Notes) -> list[str]:
    """Keep a note with the `notes` MCP server of the catalog, and return every note so far."""
    await notes.add(text)
    return await notes.all()


@mesh_tool(capability="slow_echo", timeout=2.0)
async def slow_echo(text: str, delay: Annotated[float, Field(ge=0, le=10)] = 0.0) -> str:
    """Echo text after a delay; calls longer than the 2 s timeout answer with an error."""
    await asyncio.sleep(delay)
    return text


class Turn(BaseModel):
    """One earlier turn of a conversation: what the user said, or what the assistant answered."""

    role: Literal["user", "assistant"]
    content: Annotated[str, Field(min_length=1, max_length=20_000)]


@mesh_tool(capability="ask", tags=["llm"])
@mesh_llm(provider="openai/gpt-4o-mini", tools=[add, "notes"], system_prompt="file://prompts/assistant.j2")
async def ask(
    question: Annotated[str, Field(description="A question or a task")],
    llm: MeshLlmAgent,
    history: Annotated[
        list[Turn] | None,
        Field(max_length=100, description="Earlier turns of the conversation, oldest first"),
    ] = None,
) -> Stream[str]:
    """Ask an LLM that can add numbers and keep notes (set OPENAI_API_KEY, or llm.vendors.openai); the
    answer streams as the model writes it (a caller without a progress token gets it whole). With
    `history`, the model reads the earlier turns before the question."""
    messages = [turn.model_dump() for turn in history or []]
    async for chunk in llm.stream([*messages, {"role": "user", "content": question}]):
        yield chunk


@mesh_tool(capability="countdown", tags=["jobs"], background=True)
def countdown(
    job: JobContext,
    start: Annotated[int, Field(ge=1, le=100, description="Where to count down from")] = 3,
    pause: Annotated[float, Field(ge=0, le=5, description="Seconds between numbers")] = 0.5,
) -> str:
    """Count down in the background: the call answers a job id at once; poll it with __mesh_job_status
    (each number is a job message) or cancel it with __mesh_job_cancel."""
    for n in range(start, 0, -1):
        if job.wait_cancelled(pause):
            return "cancelled"
        job.progress(start - n + 1, start, str(n))
    return "liftoff"


class Caller(BaseModel):
    """Who called, as the agent's token verifier saw it."""

    verified: bool
    client_id: str | None = None
    subject: str | None = None
    scopes: list[str] = []
    note: str | None = None


@mesh_tool(capability="whoami", tags=["auth"])
async def whoami(ctx: ToolContext) -> Caller:
    """Who called: the client id, subject and scopes of the caller's verified access token. The default
    profile checks no tokens, so there is no verified caller; `--profile secure` requires one."""
    token = ctx.access_token
    if token is None:
        return Caller(
            verified=False, note="no verified caller: this agent checks no tokens (try --profile secure)"
        )
    return Caller(
        verified=True, client_id=token.client_id, subject=token.subject, scopes=sorted(token.scopes)
    )
