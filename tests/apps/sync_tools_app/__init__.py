"""A sync tool and its async twin reporting what the call path put in their context: the call-scoped bean,
the propagated headers and the caller's deadline, the call that structured logs name. The sync one runs in
a worker thread (mesh_framework/tools/threads.py) and must see what the async one sees."""

from __future__ import annotations

import contextvars
import threading
from typing import Any

from mesh_framework import bean, configuration, mesh_agent, mesh_tool
from mesh_framework.propagation import call_deadline, propagated_headers
from mesh_framework.tracing.state import current_call

# Set inside a body; the caller's context must not see it afterwards (each call runs in a copy).
SET_IN_BODY: contextvars.ContextVar[str] = contextvars.ContextVar("sync_tools_app_set_in_body", default="")


@mesh_agent(name="sync-tools-app", version="1.0.0")
class SyncToolsApp:
    pass


class Visit:
    """A call-scoped bean: one per tool call."""

    made = 0

    def __init__(self) -> None:
        Visit.made += 1
        self.id = Visit.made


@configuration
class Visits:
    @bean(scope="call")
    def visit(self) -> Visit:
        return Visit()


def seen(visit: Visit) -> dict[str, Any]:
    call = current_call.get()
    before = SET_IN_BODY.get()
    SET_IN_BODY.set("set by an earlier call")
    return {
        "thread": threading.current_thread().name,
        "visit": visit.id,
        "headers": dict(propagated_headers()),
        "has_deadline": call_deadline() is not None,
        "call": None if call is None else [call.tool, call.request_id],
        "set_before": before,
    }


@mesh_tool()
def seen_sync(visit: Visit) -> dict[str, Any]:
    """What a sync tool sees (worker thread)."""
    return seen(visit)


@mesh_tool()
async def seen_async(visit: Visit) -> dict[str, Any]:
    """What an async tool sees (the event loop)."""
    return seen(visit)
