"""The last agent of the chain: `back` answers and logs one line inside the call."""

from __future__ import annotations

import logging

from mesh_framework import ToolContext, mesh_agent, mesh_tool

logger = logging.getLogger("tracing_app.back")


@mesh_agent(name="trace-back", version="1.0.0", scan=["tests.apps.tracing_app.back"])
class Back:
    pass


@mesh_tool(capability="back")
def back(text: str) -> str:
    """The end of the chain (a sync tool: it runs in a worker thread)."""
    logger.info("back handled %s", text)
    return "back:" + text


@mesh_tool(capability="fails")
def fails() -> str:
    """Always raises, so its span is an error."""
    raise RuntimeError("broken on purpose")


@mesh_tool(capability="streams_then_fails")
async def streams_then_fails(context: ToolContext) -> str:
    """Answers as an event stream (it takes a ToolContext), then fails."""
    await context.info("about to fail")
    raise RuntimeError("broken while streaming")
