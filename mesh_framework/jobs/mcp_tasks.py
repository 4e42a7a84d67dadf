"""MCP's own standard for long-running work on protocol 2026-07-28: the tasks extension (SEP-2663,
`io.modelcontextprotocol/tasks`), served over this agent's background jobs.

A client that declares the extension (`_meta["io.modelcontextprotocol/clientCapabilities"].extensions`)
gets a `CreateTaskResult` from a background tool's `tools/call` (`resultType: "task"`, `taskId`, `status`,
`createdAt`, `lastUpdatedAt`, `ttlMs`, `pollIntervalMs`); `tasks/get` answers the task, with the tool's
result inlined once completed; `tasks/cancel` answers an empty `{resultType: "complete"}` (also for a task
that already ended). A client that does not declare it gets the job handle, as on every older version, and
-32021 from the `tasks/*` methods. A body that raised is `completed` with `result.isError` (a tool error,
not a protocol one), as the SEP says.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..protocol.server import McpError
from ..protocol.versions import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    META_CLIENT_CAPABILITIES,
    MISSING_CLIENT_CAPABILITY,
)
from .model import Job

if TYPE_CHECKING:
    from ..tools.wrapper import MeshToolWrapper
    from .runner import JobRunner

__all__ = [
    "AS_TASK",
    "TASKS_EXTENSION",
    "TASK_STATUS",
    "McpTasks",
    "TaskCall",
    "declares_tasks",
    "iso_time",
    "visible_job",
]

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
POLL_INTERVAL_MS = 500
TASK_STATUS = {"queued": "working", "working": "working", "input_required": "input_required"}


@dataclass(frozen=True, slots=True)
class TaskCall:
    """A `tools/call` served as an MCP task: how the version in use answers the job it starts.

    `create` turns the started job into that version's task-creation result; `owner` is the caller's
    identity (bound to the job, so other callers cannot see it); `must_create` (2025-11-25, where the
    client asked for a task) answers a call over the job limits with a task that failed at once, where
    2026-07-28 answers the tool error itself.
    """

    create: Callable[[Job], dict[str, Any]]
    owner: str | None = None
    must_create: bool = False


# Set while a tools/call is served as an MCP task: the job runner answers `create(job)`.
AS_TASK: contextvars.ContextVar[TaskCall | None] = contextvars.ContextVar("mesh_as_mcp_task", default=None)


def declares_tasks(params: dict[str, Any]) -> bool:
    """Whether a 2026-07-28 request declares the tasks extension among its client capabilities."""
    meta = params.get("_meta")
    declared = meta.get(META_CLIENT_CAPABILITIES) if isinstance(meta, dict) else None
    extensions = declared.get("extensions") if isinstance(declared, dict) else None
    return isinstance(extensions, dict) and TASKS_EXTENSION in extensions


def iso_time(seconds: float | None) -> str:
    """A task timestamp: ISO 8601 in UTC, `Z`-suffixed."""
    return datetime.fromtimestamp(seconds or 0, UTC).isoformat().replace("+00:00", "Z")


def visible_job(runner: JobRunner, task_id: Any, owner: str | None) -> Job | None:
    """The job `task_id` names, if this caller may see it: a task created by an authenticated caller
    is bound to that caller (MCP asks it); to anyone else it does not exist."""
    job = runner.store.find(task_id) if isinstance(task_id, str) else None
    if job is None or (job.owner is not None and job.owner != owner):
        return None
    return job


class McpTasks:
    """The `tasks/*` methods and the task shape of a background call, for the agent's MCP endpoint."""

    def __init__(self, runner: JobRunner, ttl_seconds: float) -> None:
        self.runner = runner
        self.ttl_ms = int(ttl_seconds * 1000)

    def task(self, job: Job) -> dict[str, Any]:
        """The task's fields (SEP-2663 `Task`), with the outcome inlined once it ended."""
        status = TASK_STATUS.get(job.status, "completed" if job.status == "failed" else job.status)
        task: dict[str, Any] = {
            "taskId": job.id,
            "status": status,
            "createdAt": iso_time(job.submitted_at),
            "lastUpdatedAt": iso_time(job.finished_at or job.started_at or job.submitted_at),
            "ttlMs": self.ttl_ms,
            "pollIntervalMs": POLL_INTERVAL_MS,
        }
        if job.progress_message:
            task["statusMessage"] = job.progress_message
        if job.status == "completed" and job.answer is not None:
            task["result"] = job.answer
        elif job.status == "failed" and job.internal:  # a protocol-level error: failed, with the error
            task["status"] = "failed"
            task["error"] = {"code": INTERNAL_ERROR, "message": job.error or "internal error"}
        elif job.status == "failed":  # the body raised: a tool error, reported as the tool's result
            text = job.error or "the tool failed"
            task["result"] = {"content": [{"type": "text", "text": text}], "isError": True}
        return task

    def created(self, job: Job) -> dict[str, Any]:
        """A `CreateTaskResult`: the task, flat, without its outcome."""
        task = self.task(job)
        task.pop("result", None)
        task.pop("error", None)
        return {"resultType": "task", **task}

    async def handle(self, method: str, params: dict[str, Any], owner: str | None = None) -> dict[str, Any]:
        """`tasks/get`, `tasks/cancel`, `tasks/update`; McpError -32021 when undeclared, -32602 if unknown."""
        if not declares_tasks(params):
            raise McpError(
                MISSING_CLIENT_CAPABILITY,
                f"{method} needs the {TASKS_EXTENSION} extension: declare it in the request's "
                "_meta clientCapabilities.extensions (protocol 2026-07-28)",
                data={"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}},
            )
        task_id = params.get("taskId")
        job = visible_job(self.runner, task_id, owner)
        if method not in ("tasks/get", "tasks/cancel", "tasks/update"):
            raise McpError(-32601, f"Method not found: {method}", data=method, status=404)
        if job is None:
            raise McpError(
                INVALID_PARAMS,
                f"Unknown taskId {task_id!r}: no task with this id runs here or ended recently "
                "(ended tasks are kept for jobs.retention)",
            )
        if method == "tasks/get":
            return {"resultType": "complete", **self.task(job)}
        if method == "tasks/cancel":
            if not job.terminal:
                self.runner.cancel(job.id, "cancelled by the client")
            return {"resultType": "complete"}
        raise McpError(INVALID_PARAMS, f"Task {job.id} is not waiting for input ({self.task(job)['status']})")

    def wants(self, wrapper: MeshToolWrapper, params: dict[str, Any]) -> bool:
        """Whether this 2026-07-28 call is served as a task: a background tool, the extension declared."""
        return wrapper.spec.background and declares_tasks(params)

    async def call(
        self, wrapper: MeshToolWrapper, arguments: dict[str, Any] | None, owner: str | None = None
    ) -> dict[str, Any]:
        """Serve a background tool's call as a task: the wrapper's job hook answers `created(job)`."""
        token = AS_TASK.set(TaskCall(self.created, owner))
        try:
            return await wrapper.call(arguments)
        finally:
            AS_TASK.reset(token)
