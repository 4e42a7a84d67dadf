"""MCP's own standard for long-running work on protocol 2026-07-28: the tasks extension (SEP-2663,
`io.modelcontextprotocol/tasks`), served over this agent's background jobs.

A client that declares the extension (`_meta["io.modelcontextprotocol/clientCapabilities"].extensions`)
gets a `CreateTaskResult` from a background tool's `tools/call` (`resultType: "task"`, `taskId`, `status`,
`createdAt`, `lastUpdatedAt`, `ttlMs`, `pollIntervalMs`); `tasks/get` answers the task, with the tool's
result inlined once completed and, while the body waits for input (`JobContext.ask`), `input_required`
with the pending `inputRequests`; `tasks/update` delivers the client's `inputResponses`; `tasks/cancel`
answers an empty `{resultType: "complete"}` (also for a task that already ended). A client that does not
declare it gets the job handle, as on every older version (-32021 for a `background="required"` tool), and
-32021 from the `tasks/*` methods. A body that raised is `completed` with `result.isError` (a tool error,
not a protocol one), as the SEP says.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..input_required import REQUEST_CAPABILITIES
from ..protocol.mcp_server import McpError
from ..protocol.versions import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    META_CLIENT_CAPABILITIES,
    METHOD_NOT_FOUND,
    MISSING_CLIENT_CAPABILITY,
)
from .model import Job

if TYPE_CHECKING:
    from ..tools.context import ToolContext
    from ..tools.wrapper import MeshToolWrapper
    from .runner import JobRunner

__all__ = [
    "TASKS_EXTENSION",
    "TASK_STATUS",
    "McpTasks",
    "declares_tasks",
    "iso_time",
    "visible_job",
]

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
POLL_INTERVAL_MS = 500
TASK_STATUS = {"queued": "working", "working": "working", "input_required": "input_required"}


def _declared(params: dict[str, Any]) -> dict[str, Any]:
    meta = params.get("_meta")
    declared = meta.get(META_CLIENT_CAPABILITIES) if isinstance(meta, dict) else None
    return declared if isinstance(declared, dict) else {}


def declares_tasks(params: dict[str, Any]) -> bool:
    """Whether a 2026-07-28 request declares the tasks extension among its client capabilities."""
    extensions = _declared(params).get("extensions")
    return isinstance(extensions, dict) and TASKS_EXTENSION in extensions


def _missing_extension(what: str) -> McpError:
    return McpError(
        MISSING_CLIENT_CAPABILITY,
        f"{what} needs the {TASKS_EXTENSION} extension: declare it in the request's "
        "_meta clientCapabilities.extensions (protocol 2026-07-28)",
        data={"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}},
    )


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
        if status == "input_required":
            task["inputRequests"] = dict(job.input_requests)
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
        for outcome in ("result", "error", "inputRequests"):  # tasks/get shows them, not the creation
            task.pop(outcome, None)
        return {"resultType": "task", **task}

    async def handle(self, method: str, params: dict[str, Any], owner: str | None = None) -> dict[str, Any]:
        """`tasks/get`, `tasks/cancel`, `tasks/update`; McpError -32021 when undeclared, -32602 if unknown."""
        if not declares_tasks(params):
            raise _missing_extension(method)
        task_id = params.get("taskId")
        job = visible_job(self.runner, task_id, owner)
        if method not in ("tasks/get", "tasks/cancel", "tasks/update"):
            raise McpError(METHOD_NOT_FOUND, f"Method not found: {method}", data=method, status=404)
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
        responses = params.get("inputResponses")
        if not isinstance(responses, dict) or not all(isinstance(r, dict) for r in responses.values()):
            raise McpError(
                INVALID_PARAMS,
                "tasks/update needs params.inputResponses: an object mapping each key of the task's "
                "inputRequests to the client's answer object",
            )
        context = self.runner.context_of(job.id)
        if context is not None:  # keys not pending (answered, never asked, a task that ended) are ignored
            context.answer(responses)
        return {"resultType": "complete"}

    @staticmethod
    def declared(params: dict[str, Any]) -> bool:
        """Whether the request declares the tasks extension."""
        return declares_tasks(params)

    @staticmethod
    def missing_extension(what: str) -> McpError:
        """The -32021 error for `what`, which needs the tasks extension declared."""
        return _missing_extension(what)

    def wants(self, wrapper: MeshToolWrapper, params: dict[str, Any]) -> bool:
        """Whether this 2026-07-28 call is served as a task: a background tool, the extension declared.
        A `background="required"` tool called without the extension is refused (-32021)."""
        if not wrapper.spec.background:
            return False
        if declares_tasks(params):
            return True
        if wrapper.spec.task_required:
            raise _missing_extension(f"Tool '{wrapper.name}' runs only as a task, so calling it")
        return False

    async def call(
        self,
        wrapper: MeshToolWrapper,
        params: dict[str, Any],
        owner: str | None = None,
        context: ToolContext | None = None,
    ) -> dict[str, Any]:
        """Serve a background tool's call as a task: the wrapper's job hook answers `created(job)`."""
        from .task_call import AS_TASK, TaskCall  # loaded by the first call served as a task

        declared = _declared(params)
        can_answer = frozenset(c for c in REQUEST_CAPABILITIES.values() if c in declared)
        token = AS_TASK.set(TaskCall(self.created, owner, input_capabilities=can_answer))
        try:
            return await wrapper.call(params.get("arguments"), context)
        finally:
            AS_TASK.reset(token)
