"""`JobRunner`: runs background and task tools' jobs in this process, within the concurrency limits.

A background tool's call answers at once with a job handle and its body runs as an asyncio task; a task
tool's plain call runs inline (its `JobContext` slot gets None), and a registry job (pushed with
`X-Mesh-Job-Id` or claimed) runs bound to that job, its progress and result reported to the registry.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic_core import to_jsonable_python

from .._frozen import frozen
from ..config.settings import JobSettings
from ..errors import ToolExecutionError
from ..failures import log_failure
from ..input_required import InputNotPossible, InputRequired, input_required_result
from ..tools.context import ToolContext
from ..tools.wrapper import MeshToolWrapper, error_result
from .context import JobCancelled, JobContext
from .model import Job, JobStatus, new_job_id
from .store import JobStore

if TYPE_CHECKING:
    from ..tools.wrapper_registry import MeshToolWrapperRegistry

__all__ = [
    "DISPATCH",
    "STOPPED",
    "STOPPED_BEFORE_START",
    "Dispatch",
    "JobLimitError",
    "JobRunner",
    "answer_schema",
    "handle_result",
]

logger = logging.getLogger("mesh_framework.jobs")

STOPPED = "agent stopped"  # the error of a job still running when its agent stopped
STOPPED_BEFORE_START = "agent stopped before the job started"
ABORT_WAIT = 1.0  # seconds a stopping agent waits for cancelled bodies to return

POLL_TOOLS = {"status": "__mesh_job_status", "result": "__mesh_job_result", "cancel": "__mesh_job_cancel"}
HANDLE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "job_id": {"type": "string"},
        "status": {"type": "string"},
        "tool": {"type": "string"},
        "poll": {"type": "object"},
    },
    "required": ["job_id", "status"],
}


def answer_schema(body_schema: dict[str, Any]) -> dict[str, Any]:
    """A background tool's `outputSchema`: a plain call answers the job handle, a call served as an MCP
    task answers the body's result (strict clients check either against it). A body without an output
    schema leaves the tool without one, since its task result may carry no structured content."""
    body = {k: v for k, v in body_schema.items() if k != "$defs"}
    schema: dict[str, Any] = {"type": "object", "anyOf": [HANDLE_SCHEMA, body]}
    if "$defs" in body_schema:  # references stay relative to the root
        schema["$defs"] = body_schema["$defs"]
    return schema


@frozen
class Dispatch:
    """A registry job this request runs (`X-Mesh-Job-Id` and its companion headers)."""

    job_id: str
    timeout: float | None = None
    claim_epoch: int | None = None


DISPATCH: contextvars.ContextVar[Dispatch | None] = contextvars.ContextVar("mesh_job_dispatch", default=None)


class JobLimitError(Exception):
    """A job cannot start now: the agent's or the tool's limit of running jobs is reached."""


def handle_result(job: Job) -> dict[str, Any]:
    """What a background call answers: the job handle, and how to poll it."""
    verb = "Queued" if job.status == "queued" else "Started"
    text = (
        f"{verb} job {job.id} for tool '{job.tool}'; poll it with __mesh_job_status(job_id) or "
        "__mesh_job_result(job_id), cancel it with __mesh_job_cancel(job_id)"
    )
    handle = {"job_id": job.id, "status": job.status, "tool": job.tool, "poll": POLL_TOOLS}
    return {"content": [{"type": "text", "text": text}], "structuredContent": handle, "isError": False}


Reporter = Callable[[Job, bool], None]  # (job, final) -> schedules a report to the registry


class JobRunner:
    """Starts, limits, cancels and keeps this agent's jobs."""

    def __init__(self, settings: JobSettings) -> None:
        self.settings = settings
        self.store = JobStore(max_count=settings.retention.max_count, max_age=settings.retention.max_age)
        self.reporter: Reporter | None = None  # set when jobs are bound to a registry
        self._running: dict[str, tuple[MeshToolWrapper, Job]] = {}
        self._per_tool: dict[str, int] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._contexts: dict[str, JobContext] = {}
        self._queue: deque[tuple[MeshToolWrapper, dict[str, Any], Job]] = deque()
        self._waiters: dict[str, list[asyncio.Future[None]]] = {}
        self._idle: asyncio.Event | None = None  # set when the last running job ends (see `wait_running`)
        self.accepting = True  # False once the agent stops: no job starts any more

    def install(self, tools: MeshToolWrapperRegistry) -> None:
        """Route the calls of every background and task tool through this runner."""
        for wrapper in tools:
            if wrapper.spec.background or wrapper.spec.task:
                wrapper.job_hook = self.hook
            if wrapper.spec.background:
                descriptor = {k: v for k, v in wrapper.descriptor.items() if k != "outputSchema"}
                body_schema = wrapper.signature.output_schema
                if body_schema is not None:
                    descriptor["outputSchema"] = answer_schema(body_schema)
                wrapper.descriptor = descriptor

    @property
    def running(self) -> int:
        return len(self._running)

    def registry_jobs(self) -> list[Job]:
        """The running jobs that belong to a registry (claimed or pushed)."""
        return [job for _w, job in self._running.values() if job.submitted_by == "registry"]

    async def hook(
        self, wrapper: MeshToolWrapper, kwargs: dict[str, Any], context: ToolContext | None
    ) -> dict[str, Any]:
        if wrapper.spec.prepare is not None:  # a background tool's input rounds, before any job
            asked = await self._prepare(wrapper, kwargs, context or ToolContext(wrapper.name))
            if asked is not None:
                return asked
        dispatch = DISPATCH.get()
        if dispatch is not None:
            return await self.run_dispatched(wrapper, kwargs, dispatch)
        from .task_call import AS_TASK  # set by the task protocols (jobs/mcp_tasks.py, experimental_tasks.py)

        task_call = AS_TASK.get()  # an MCP task: of a background tool, or of a task tool (2025-11-25)
        if task_call is None and not wrapper.spec.background:
            return await self._inline(wrapper, kwargs)
        for param in wrapper.signature.injected:  # the body outlives the request: no stream to write to
            if param.kind == "context" and isinstance(kwargs.get(param.name), ToolContext):
                kwargs[param.name] = kwargs[param.name].detached()
        owner = task_call.owner if task_call is not None else None
        try:
            job = self.submit(wrapper, kwargs, owner=owner)
        except JobLimitError as exc:
            if task_call is None or not task_call.must_create:
                return error_result(str(exc))
            job = self.refused(wrapper, _client_arguments(wrapper, kwargs), str(exc), owner)
        if task_call is not None:  # set before the body's first step, which runs once this call yields
            job.input_capabilities = task_call.input_capabilities
        return task_call.create(job) if task_call is not None else handle_result(job)

    async def _prepare(
        self, wrapper: MeshToolWrapper, kwargs: dict[str, Any], context: ToolContext
    ) -> dict[str, Any] | None:
        """Run the tool's `prepare`: the InputRequiredResult (or tool error) it answers, None to start."""
        prepare = wrapper.spec.prepare
        assert prepare is not None
        try:
            value = prepare(context, _client_arguments(wrapper, kwargs))
            if inspect.isawaitable(value):
                value = await value
        except Exception as exc:
            logger.warning("prepare of tool '%s' raised: %r", wrapper.name, exc)
            return error_result(wrapper.error_text(exc))
        if value is None:
            return None
        if not isinstance(value, InputRequired):
            return error_result(
                f"prepare of tool '{wrapper.name}' returned {type(value).__name__}; it must return "
                "InputRequired (ask the client first) or None (start the job)"
            )
        try:
            return input_required_result(f"Tool '{wrapper.name}'", value, context)
        except InputNotPossible as exc:
            return error_result(str(exc))

    def context_of(self, job_id: str) -> JobContext | None:
        """A running job's context (to deliver its client's input); None once the job ended."""
        return self._contexts.get(job_id)

    def submit(
        self,
        wrapper: MeshToolWrapper,
        kwargs: dict[str, Any],
        job: Job | None = None,
        *,
        owner: str | None = None,
    ) -> Job:
        """Start (or queue) a job of `wrapper` with prepared arguments; raises JobLimitError."""
        if job is None:
            job = Job(
                id=new_job_id(),
                tool=wrapper.name,
                capability=wrapper.capability,
                arguments=_client_arguments(wrapper, kwargs),
                owner=owner,
            )
        if not self.accepting:
            raise JobLimitError(f"Tool '{wrapper.name}' cannot start a job now: the agent is stopping")
        problem = self.over_limit(wrapper)
        if problem is not None:
            if not self.settings.queue or len(self._queue) >= self.settings.max_queued:
                raise JobLimitError(problem)
            job.status = "queued"
            self.store.add(job)
            self._queue.append((wrapper, kwargs, job))
            return job
        self.store.add(job)
        self._start(wrapper, kwargs, job)
        return job

    def refused(
        self, wrapper: MeshToolWrapper, arguments: dict[str, Any], reason: str, owner: str | None = None
    ) -> Job:
        """Record a job that could not start (over the limits, bad arguments) as failed at once."""
        logger.warning("job of tool '%s' refused: %s", wrapper.name, reason.splitlines()[0] if reason else "")
        now = time.time()
        job = Job(
            id=new_job_id(),
            tool=wrapper.name,
            capability=wrapper.capability,
            arguments=arguments,
            owner=owner,
            status="failed",
            error=reason,
            answer=error_result(reason),
            started_at=now,
            finished_at=now,
        )
        self.store.add(job)
        self.store.finished(job)
        return job

    async def settled(self, job: Job) -> None:
        """Wait until `job` reaches a terminal status (at once if it has)."""
        if job.terminal:
            return
        waiter = asyncio.get_running_loop().create_future()
        waiters = self._waiters.setdefault(job.id, [])
        waiters.append(waiter)
        try:
            await waiter
        finally:
            with contextlib.suppress(ValueError):
                waiters.remove(waiter)
            if not waiters:
                self._waiters.pop(job.id, None)

    def _settle(self, job: Job) -> None:
        """`job` reached a terminal status: keep it for retention and wake whoever waits on it."""
        self.store.finished(job)
        for waiter in self._waiters.get(job.id, ()):
            if not waiter.done():
                waiter.set_result(None)

    def _limit_of(self, wrapper: MeshToolWrapper) -> int | None:
        if wrapper.spec.max_concurrent is not None:
            return wrapper.spec.max_concurrent
        return self.settings.tools.get(wrapper.name)

    def over_limit(self, wrapper: MeshToolWrapper) -> str | None:
        """Why a job of `wrapper` cannot start now (a one-line message), or None when there is room."""
        limit = self._limit_of(wrapper)
        if limit is not None and self._per_tool.get(wrapper.name, 0) >= limit:
            busy = next(j for w, j in self._running.values() if w.name == wrapper.name)
            scope = f"the limit of tool '{wrapper.name}' is {limit}"
        elif len(self._running) >= self.settings.max_concurrent:
            busy = next(iter(self._running.values()))[1]
            scope = f"jobs.max_concurrent is {self.settings.max_concurrent}"
        else:
            return None
        return (
            f"Tool '{wrapper.name}' cannot start a job now: job {busy.id} ('{busy.tool}', running for "
            f"{busy.runtime_seconds:.1f}s) is running and {scope}; poll __mesh_job_status('{busy.id}') and "
            "call again when it finishes, or set jobs.queue: true to queue calls"
        )

    def _start(self, wrapper: MeshToolWrapper, kwargs: dict[str, Any], job: Job) -> JobContext:
        reporter = self.reporter if job.claim_epoch is not None or job.submitted_by == "registry" else None
        context = JobContext(job, on_change=(lambda: reporter(job, False)) if reporter else None)
        for param in wrapper.signature.injected:
            if param.kind == "job":
                kwargs[param.name] = context
        job.status = "working"
        job.started_at = time.time()
        self._running[job.id] = (wrapper, job)
        self._per_tool[wrapper.name] = self._per_tool.get(wrapper.name, 0) + 1
        self._contexts[job.id] = context
        self._tasks[job.id] = asyncio.get_running_loop().create_task(self._run(wrapper, kwargs, job, context))
        return context

    async def _run(self, wrapper: MeshToolWrapper, kwargs: dict[str, Any], job: Job, ctx: JobContext) -> None:
        from .capture import capturing, release  # output capture: loaded with the first job run

        DISPATCH.set(None)  # calls the body makes are not this job (this task's own context)
        token, buffer = capturing(ctx.message)
        limits = (wrapper.spec.timeout, self.settings.timeout, job.max_duration)
        timeout = min((t for t in limits if t is not None), default=None)
        try:
            running = wrapper.invoke(kwargs)
            value = await (running if timeout is None else asyncio.wait_for(running, timeout))
            if ctx.cancelled:
                raise JobCancelled(job.id)
            try:
                answer = wrapper.to_result(value)
            except Exception as exc:  # a value its return type does not describe: not the body's error
                job.internal = True
                raise ToolExecutionError(
                    f"Tool '{wrapper.name}' returned a value that does not match its return type: {exc}"
                ) from None
            if not job.terminal:  # else cancelled, or failed by the agent's stop, meanwhile
                job.answer = answer
                job.result = _job_result(answer, value)
                job.status = "completed"
        except (asyncio.CancelledError, JobCancelled):
            _end(job, "cancelled", "cancelled")
        except TimeoutError:
            _end(job, "failed", f"Tool '{wrapper.name}' timed out after {timeout}s")
        except ToolExecutionError as exc:
            _end(job, "failed", wrapper.error_text(exc))
        except Exception as exc:
            logger.warning("job %s of tool '%s' failed: %r", job.id, wrapper.name, exc)
            _end(job, "failed", wrapper.error_text(exc))
        finally:
            release(token, buffer)
            self._finish(wrapper, job)

    def _finish(self, wrapper: MeshToolWrapper, job: Job) -> None:
        if self._running.pop(job.id, None) is None:
            return  # finished already (the agent's stop ended it while its body ignored the cancel)
        if job.finished_at is None:
            job.finished_at = time.time()
        self._per_tool[wrapper.name] -= 1
        self._tasks.pop(job.id, None)
        self._contexts.pop(job.id, None)
        self._settle(job)
        if self.reporter is not None and (job.claim_epoch is not None or job.submitted_by == "registry"):
            self.reporter(job, True)
        self._pump()
        if not self._running and self._idle is not None:
            self._idle.set()

    def _pump(self) -> None:
        """Start queued jobs while there is room."""
        while self._queue:
            wrapper, kwargs, job = self._queue[0]
            if job.status != "queued":
                self._queue.popleft()
                continue
            if self.over_limit(wrapper) is not None:
                return
            self._queue.popleft()
            self._start(wrapper, kwargs, job)

    def cancel(self, job_id: str, reason: str | None = None) -> Job:
        """Cancel a queued or running job of this agent; raises ValueError if it already finished."""
        job = self.store.get(job_id)
        if job.terminal:
            raise ValueError(
                f"Job {job_id} already finished ({job.status}); there is nothing to cancel. "
                "Read its outcome with __mesh_job_result"
            )
        job.error = f"cancelled: {reason}" if reason else "cancelled"
        context = self._contexts.get(job_id)
        if context is not None:
            context.cancel()
        task = self._tasks.get(job_id)
        job.status = "cancelled"
        if task is not None:
            task.cancel()
        else:  # queued: never started
            job.finished_at = time.time()
            self._settle(job)
        return job

    async def run_dispatched(
        self, wrapper: MeshToolWrapper, kwargs: dict[str, Any], dispatch: Dispatch
    ) -> dict[str, Any]:
        """Run a registry job pushed to this agent (`X-Mesh-Job-Id`): bound to the job, answered inline."""
        job = Job(
            id=dispatch.job_id,
            tool=wrapper.name,
            capability=wrapper.capability,
            arguments=_client_arguments(wrapper, kwargs),
            submitted_by="registry",
            claim_epoch=dispatch.claim_epoch,
            max_duration=dispatch.timeout,
        )
        self.store.add(job)
        if not self.accepting:  # claimed or pushed as the agent stops: it never starts
            self._stopped(job, STOPPED_BEFORE_START)
            return error_result(f"job {job.id} {job.status}: {job.error}")
        self._start(wrapper, kwargs, job)
        task = self._tasks.get(job.id)
        if task is not None:
            await asyncio.shield(task)
        if job.status == "completed":
            return _answer(job.result)
        return error_result(job.error or f"job {job.id} {job.status}")

    async def _inline(self, wrapper: MeshToolWrapper, kwargs: dict[str, Any]) -> dict[str, Any]:
        try:
            running = wrapper.invoke(kwargs)
            value = await (running if wrapper.timeout is None else asyncio.wait_for(running, wrapper.timeout))
        except TimeoutError:
            return error_result(f"Tool '{wrapper.name}' timed out after {wrapper.timeout}s")
        except ToolExecutionError as exc:
            return error_result(wrapper.error_text(exc))
        except Exception as exc:
            log_failure(logger, f"tool '{wrapper.name}'", exc)
            return error_result(wrapper.error_text(exc))
        return wrapper.to_result(value)

    # --- the agent stops ----------------------------------------------------------------------------

    def stop_accepting(self) -> None:
        """Start no job from now on; queued jobs, which never started, end failed (one log line each)."""
        self.accepting = False
        queued = [job for _wrapper, _kwargs, job in self._queue if not job.terminal]
        self._queue.clear()
        for job in queued:
            self._stopped(job, STOPPED_BEFORE_START)

    async def wait_running(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the running jobs to end; true when none is left."""
        if self._running and timeout > 0:
            self._idle = asyncio.Event()
            try:
                await asyncio.wait_for(self._idle.wait(), timeout)
            except TimeoutError:
                pass
            finally:
                self._idle = None
        return not self._running

    async def abort(self, reason: str) -> list[Job]:
        """End every running job `failed` with `reason` (one log line each) and cancel its body; returns them.

        A body that ignores the cancel is given `ABORT_WAIT` seconds; its job has ended regardless (a sync
        body's worker thread runs on until it returns)."""
        ended = list(self._running.values())
        tasks = []
        for _wrapper, job in ended:
            self._stopped(job, reason, settle=False)
            context = self._contexts.get(job.id)
            if context is not None:
                context.cancel()
            task = self._tasks.get(job.id)
            if task is not None:
                task.cancel()
                tasks.append(task)
        if tasks:
            await asyncio.wait(tasks, timeout=ABORT_WAIT)
        for wrapper, job in ended:
            self._finish(wrapper, job)  # a no-op for the bodies that ended
        return [job for _wrapper, job in ended]

    def _stopped(self, job: Job, reason: str, *, settle: bool = True) -> None:
        job.status = "failed"
        job.error = reason
        job.internal = True  # the agent's doing, not the body's: MCP tasks answer it as an error
        job.finished_at = time.time()
        logger.warning(
            "job %s of tool '%s' failed: %s (%s for %.1fs)",
            job.id,
            job.tool,
            reason,
            "queued" if job.started_at is None else "running",
            job.finished_at - (job.started_at or job.submitted_at),
        )
        if settle:
            self._settle(job)
            if self.reporter is not None and (job.claim_epoch is not None or job.submitted_by == "registry"):
                self.reporter(job, True)

    async def aclose(self) -> None:
        """The agent stops at once: no new jobs, and every queued and running job ends failed."""
        self.stop_accepting()
        if self._running:
            await self.abort(STOPPED)


def _end(job: Job, status: JobStatus, error: str) -> None:
    """A body's outcome, unless the job already ended (cancelled, or failed by the agent's stop)."""
    if not job.terminal:
        job.status = status
        job.error = error


def _client_arguments(wrapper: MeshToolWrapper, kwargs: dict[str, Any]) -> dict[str, Any]:
    injected = {p.name for p in wrapper.signature.injected}
    return {k: to_jsonable_python(v, fallback=str) for k, v in kwargs.items() if k not in injected}


def _job_result(wire: dict[str, Any], value: Any) -> Any:
    """A body's value as a job result (JSON): the tool's structured result, or its text as `{"value"}`."""
    if "structuredContent" in wire:
        return wire["structuredContent"]
    if value is None:
        return None
    texts = [c.get("text", "") for c in wire.get("content", []) if c.get("type") == "text"]
    return {"value": "\n".join(texts)}


def _answer(result: Any) -> dict[str, Any]:
    from pydantic_core import to_json

    if result is None:
        return {"content": [], "isError": False}
    text = to_json(result).decode()
    wire: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": False}
    if isinstance(result, dict):
        wire["structuredContent"] = result
    return wire
