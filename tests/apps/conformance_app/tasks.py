"""The tools the conformance suite's tasks scenarios call (SEP-2663; the suite fixes names and behaviour)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from mesh_framework import InputRequired, JobContext, ToolContext, elicit, mesh_tool

CONFIRM = {"confirm": {"type": "boolean"}}


@mesh_tool()
def greet(name: str) -> str:
    """Sync only: never a task."""
    return f"Hello, {name}!"


@mesh_tool(background=True)
async def slow_compute(seconds: float, label: str = "") -> str:
    """Sleeps `seconds`, then answers; a cancel ends it `cancelled`."""
    await asyncio.sleep(seconds)
    return f"computed {label} in {seconds}s"


@mesh_tool(background="required")
async def failing_job() -> str:
    """Runs only as a task and always fails: a tool error (the task is `completed` with `isError`)."""
    await asyncio.sleep(0.2)
    raise RuntimeError("failing_job always fails")


@mesh_tool(background=True)
async def protocol_error_job() -> int:
    """Returns what its return type does not describe: a protocol-level error (the task is `failed`)."""
    return "not a number"  # type: ignore[return-value]


@mesh_tool(background=True)
async def confirm_delete(filename: str, job: JobContext) -> str:
    """Asks the task's client to confirm (the task is `input_required` until `tasks/update` answers)."""
    answer = (await job.ask({"confirm": elicit(f"Delete {filename}?", CONFIRM, ["confirm"])}))["confirm"]
    confirmed = answer.get("action") == "accept" and (answer.get("content") or {}).get("confirm")
    return f"deleted {filename}" if confirmed else f"kept {filename}"


@mesh_tool(background=True)
async def multi_input(job: JobContext) -> str:
    """Asks two questions at once; the client may answer them one at a time."""
    name = {"name": {"type": "string"}}
    first, second = await asyncio.gather(
        job.ask({"first": elicit("First name?", name, ["name"])}),
        job.ask({"second": elicit("Second name?", name, ["name"])}),
    )
    names = [(a.get("content") or {}).get("name") for a in (first["first"], second["second"])]
    return f"received {names[0]} and {names[1]}"


def _ask_user_name(ctx: ToolContext, arguments: Mapping[str, Any]) -> InputRequired | None:
    answer = ctx.input_responses.get("user_name")
    if isinstance(answer, dict) and answer.get("action") == "accept":
        return None
    return InputRequired({"user_name": elicit("What is your name?", {"name": {"type": "string"}}, ["name"])})


@mesh_tool(background="required", prepare=_ask_user_name)
async def test_tool_with_task(ctx: ToolContext) -> str:
    """Asks the user's name before its task starts (a multi-round call), then greets from the task."""
    await asyncio.sleep(0.1)
    return f"Hello, {ctx.input_responses['user_name']['content']['name']}, from a task!"
