"""MCP's own standard for long-running work on protocol 2025-11-25: its experimental tasks, served over
this agent's jobs on the handshake-era path.

The server declares `capabilities.tasks` (`list`, `cancel`, `requests.tools.call`) in its `initialize`
answer for 2025-11-25, and its background and task tools say `execution.taskSupport: "optional"`
(`"required"` for `background="required"`, whose plain calls are then -32601) in `tools/list`. A
`tools/call` carrying `params.task` then starts the tool's job and answers a `CreateTaskResult`
(`{task: {...}}`); the client polls `tasks/get`, reads the outcome with `tasks/result` (it waits for the
job to end, then answers exactly what a plain call would have, with the
`io.modelcontextprotocol/related-task` stamp), and may `tasks/list` and `tasks/cancel`.
A tool error ends the task `failed`; unknown ids, bad cursors and cancelling an ended task are -32602;
a task requested of a tool that does not support one is -32601, as the specification says.
"""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING, Any

from ..protocol.mcp_server import McpError
from ..protocol.versions import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND
from ..tools.wrapper import error_result
from .mcp_tasks import POLL_INTERVAL_MS, TASK_STATUS, iso_time, visible_job
from .model import Job

if TYPE_CHECKING:
    from ..tools.wrapper import MeshToolWrapper
    from .runner import JobRunner

__all__ = ["ExperimentalTasks", "TASKS_VERSION"]

TASKS_VERSION = "2025-11-25"
RELATED_TASK = "io.modelcontextprotocol/related-task"
IMMEDIATE_RESPONSE = "io.modelcontextprotocol/model-immediate-response"
PAGE_SIZE = 50
CAPABILITY: dict[str, Any] = {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}
METHODS = ("tasks/get", "tasks/result", "tasks/list", "tasks/cancel")


class ExperimentalTasks:
    """The 2025-11-25 task methods and the task answer of a task-augmented `tools/call`."""

    version = TASKS_VERSION
    capability = CAPABILITY

    def __init__(self, runner: JobRunner, ttl_seconds: float) -> None:
        self.runner = runner
        self.ttl_ms = int(ttl_seconds * 1000)  # what retention keeps at least; a requested ttl is not kept

    @staticmethod
    def supports(wrapper: MeshToolWrapper) -> bool:
        """Background tools and MCP Mesh task tools run as tasks; every other tool forbids it."""
        return wrapper.spec.background or wrapper.spec.task

    def tool_descriptor(self, wrapper: MeshToolWrapper) -> dict[str, Any]:
        """The tool as 2025-11-25's `tools/list` shows it: with `execution.taskSupport` when supported."""
        if not self.supports(wrapper):
            return wrapper.descriptor
        support = "required" if wrapper.spec.task_required else "optional"
        return {**wrapper.descriptor, "execution": {"taskSupport": support}}

    def check_plain_call(self, wrapper: MeshToolWrapper) -> None:
        """A call without `params.task` of a tool whose `taskSupport` is required is -32601, as 2025-11-25
        says."""
        if wrapper.spec.task_required:
            raise McpError(
                METHOD_NOT_FOUND,
                f"Tool '{wrapper.name}' runs only as a task (its execution.taskSupport is required); "
                "call it with params.task",
                status=404,
            )

    def task(self, job: Job) -> dict[str, Any]:
        """The 2025-11-25 `Task`. A failed tool (raised, or answered `isError`) is `failed`."""
        status = TASK_STATUS.get(job.status, job.status)
        if status == "completed" and job.answer is not None and job.answer.get("isError"):
            status = "failed"
        task: dict[str, Any] = {
            "taskId": job.id,
            "status": status,
            "createdAt": iso_time(job.submitted_at),
            "lastUpdatedAt": iso_time(job.finished_at or job.started_at or job.submitted_at),
            "ttl": self.ttl_ms,
            "pollInterval": POLL_INTERVAL_MS,
        }
        message = job.error if job.status in ("failed", "cancelled") else job.progress_message
        if message:
            task["statusMessage"] = message
        return task

    def created(self, job: Job) -> dict[str, Any]:
        """A `CreateTaskResult`, with the line a host may hand its model while the task runs."""
        note = (
            f"Started task {job.id} for tool '{job.tool}'; its result follows when it completes"
            if not job.terminal
            else f"Task {job.id} for tool '{job.tool}' ended at once: {job.error or job.status}"
        )
        return {"task": self.task(job), "_meta": {IMMEDIATE_RESPONSE: note}}

    async def call(
        self, wrapper: MeshToolWrapper, arguments: dict[str, Any] | None, owner: str | None = None
    ) -> dict[str, Any]:
        """Serve a task-augmented `tools/call`: the tool's job starts, its task answers."""
        if not self.supports(wrapper):
            raise McpError(
                METHOD_NOT_FOUND,
                f"Tool '{wrapper.name}' does not run as a task (its execution.taskSupport is forbidden); "
                "call it without params.task",
                status=404,
            )
        from .task_call import AS_TASK, TaskCall  # loaded by the first call served as a task

        token = AS_TASK.set(TaskCall(self.created, owner, must_create=True))
        try:
            answer = await wrapper.call(arguments)
        finally:
            AS_TASK.reset(token)
        if "task" in answer:
            return answer
        # Refused before a job existed (arguments not valid, a dependency missing): the task fails at
        # once with the tool error a plain call answers, which a model can read and correct.
        job = self.runner.refused(
            wrapper, arguments or {}, _text(answer) or "the tool could not start", owner
        )
        job.answer = answer
        return self.created(job)

    async def handle(self, method: str, params: dict[str, Any], owner: str | None = None) -> dict[str, Any]:
        """`tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` of protocol 2025-11-25."""
        if method == "tasks/list":
            return self._list(params.get("cursor"), owner)
        if method not in METHODS:
            raise McpError(METHOD_NOT_FOUND, f"Method not found: {method}", data=method, status=404)
        task_id = params.get("taskId")
        job = visible_job(self.runner, task_id, owner)
        if job is None:
            raise McpError(
                INVALID_PARAMS,
                f"Failed to retrieve task: no task {task_id!r} runs here or ended recently "
                "(ended tasks are kept for jobs.retention)",
            )
        if method == "tasks/get":
            return self.task(job)
        if method == "tasks/cancel":
            if job.terminal:
                raise McpError(
                    INVALID_PARAMS, f"Cannot cancel task {job.id}: already in terminal status '{job.status}'"
                )
            self.runner.cancel(job.id, "cancelled by the client")
            return self.task(job)
        await self.runner.settled(job)
        return {**self._outcome(job), "_meta": {RELATED_TASK: {"taskId": job.id}}}

    def _outcome(self, job: Job) -> dict[str, Any]:
        """What a plain call would have answered: the tool's result, or its tool error."""
        if job.status == "completed" and job.answer is not None:
            return job.answer
        if job.status == "failed" and job.internal:
            raise McpError(INTERNAL_ERROR, job.error or "internal error", status=500)
        if job.status == "cancelled":
            return error_result(f"Task {job.id} was {job.error or 'cancelled'}")
        return job.answer if job.answer is not None else error_result(job.error or "the tool failed")

    def _list(self, cursor: Any, owner: str | None) -> dict[str, Any]:
        jobs = [job for job in self.runner.store if job.owner is None or job.owner == owner]
        start = 0
        if cursor is not None:
            after = _decode_cursor(cursor)
            index = next((i for i, job in enumerate(jobs) if job.id == after), None)
            if index is None:
                raise McpError(
                    INVALID_PARAMS,
                    f"Invalid cursor {cursor!r}: it is not one this server gave, or the task it points "
                    "after has ended its retention; list again without a cursor",
                )
            start = index + 1
        page = jobs[start : start + PAGE_SIZE]
        result: dict[str, Any] = {"tasks": [self.task(job) for job in page]}
        if start + PAGE_SIZE < len(jobs):
            result["nextCursor"] = base64.urlsafe_b64encode(page[-1].id.encode()).decode()
        return result


def _decode_cursor(cursor: Any) -> str | None:
    if not isinstance(cursor, str):
        return None
    try:
        return base64.urlsafe_b64decode(cursor.encode()).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


def _text(answer: dict[str, Any]) -> str:
    return "\n".join(c.get("text", "") for c in answer.get("content", []) if c.get("type") == "text")
