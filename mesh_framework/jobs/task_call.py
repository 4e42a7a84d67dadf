"""`TaskCall`: how a `tools/call` served as an MCP task answers the job it starts, set in `AS_TASK` for
the job runner while the call runs (both task protocols set it; the runner only reads it)."""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

from .._frozen import frozen
from .model import Job

__all__ = ["AS_TASK", "TaskCall"]


@frozen
class TaskCall:
    """A `tools/call` served as an MCP task: how the version in use answers the job it starts.

    `create` turns the started job into that version's task-creation result; `owner` is the caller's
    identity (bound to the job, so other callers cannot see it); `must_create` (2025-11-25, where the
    client asked for a task) answers a call over the job limits with a task that failed at once, where
    2026-07-28 answers the tool error itself; `input_capabilities` are the kinds of input the client can
    give during the task (None: it cannot be asked).
    """

    create: Callable[[Job], dict[str, Any]]
    owner: str | None = None
    must_create: bool = False
    input_capabilities: frozenset[str] | None = None


# Set while a tools/call is served as an MCP task: the job runner answers `create(job)`.
AS_TASK: contextvars.ContextVar[TaskCall | None] = contextvars.ContextVar("mesh_as_mcp_task", default=None)
