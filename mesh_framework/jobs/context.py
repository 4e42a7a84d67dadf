"""`JobContext` (alias `MeshJob`): what a background or task tool's body receives to report on its job.

Declare a parameter of this type and the framework injects it, by type, hidden from the input schema. Its
methods are plain (not coroutines) so a sync body running in a worker thread can call them too, and they
never block: they update the job's state, which the status tools and the registry reporter read.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping
from typing import Any, ClassVar

from ..errors import MeshError
from ..input_required import REQUEST_CAPABILITIES, InputNotPossible, InputRequired
from ..tools.injection import ConstantInjection, Injection, InjectionRule
from .model import Job

__all__ = ["JobCancelled", "JobContext", "MeshJob"]


class JobCancelled(MeshError):
    """Raised by `JobContext.check_cancelled()` once the job was cancelled; the job ends `cancelled`."""


class JobContext:
    """The running job, seen from its body.

    Usage::

        @mesh_tool(background=True)
        async def reindex(index: str, job: JobContext) -> dict:
            for i in range(10):
                job.check_cancelled()
                job.progress(i, 10, f"shard {i}")
                ...
            return {"index": index}

    A sync body may also `print(...)`: each printed line becomes a job message.
    """

    __slots__ = ("_answers", "_cancel", "_issued", "_job", "_on_change")
    # A tool's parameter of this type: the job runner puts the running job's here (None on an inline call).
    __mesh_injection__: ClassVar[InjectionRule] = ConstantInjection(Injection("job"))

    def __init__(self, job: Job, *, on_change: Any = None) -> None:
        self._job = job
        self._cancel = threading.Event()
        self._on_change = on_change  # called (no arguments) after each update; schedules registry flushes
        self._answers: dict[str, asyncio.Future[dict[str, Any]]] = {}  # pending input, by wire key
        self._issued: set[str] = set()  # every wire key asked so far: a key is never used twice

    @property
    def job_id(self) -> str:
        return self._job.id

    @property
    def tool(self) -> str:
        return self._job.tool

    @property
    def claim_epoch(self) -> int | None:
        return self._job.claim_epoch

    @property
    def cancelled(self) -> bool:
        """True once a cancel was asked for; a long body checks it between steps."""
        return self._cancel.is_set()

    @property
    def command(self) -> str:
        """The command line `get_server_status` shows (default: the tool and its arguments); settable."""
        return self._job.describe()

    @command.setter
    def command(self, value: str) -> None:
        self._job.command = value

    @property
    def messages(self) -> list[str]:
        return list(self._job.messages)

    def progress(self, done: float, total: float | None = None, message: str | None = None) -> None:
        """Report `done` of `total` steps (or a fraction 0..1 when `total` is None), with an optional note."""
        self._job.done = float(done)
        self._job.total = float(total) if total is not None else None
        if message is not None:
            self._job.progress_message = message
            self._job.messages.append(message)
        self._changed()

    def message(self, text: str) -> None:
        """Add one line to the job's messages (what `get_server_status` shows)."""
        self._job.messages.append(str(text))
        self._changed()

    def check_cancelled(self) -> None:
        """Raise `JobCancelled` if the job was cancelled."""
        if self._cancel.is_set():
            raise JobCancelled(f"job {self._job.id} was cancelled")

    def wait_cancelled(self, timeout: float | None = None) -> bool:
        """Block (a sync body) until cancelled or `timeout` seconds passed; True if cancelled."""
        return self._cancel.wait(timeout)

    async def update_progress(self, progress: float, message: str | None = None) -> None:
        """MCP Mesh's `MeshJob.update_progress`: `progress` is a fraction 0..1."""
        self.progress(progress, None, message)

    async def ask(self, requests: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
        """Ask the client of this job's MCP task for input; the answers, by the keys of `requests`.

        `requests` maps keys of your choosing to `elicit(...)`, `sample(...)` or `list_roots()` requests.
        The task shows `input_required` (its `tasks/get` lists the pending requests under
        `inputRequests`) until the client has answered each of them with `tasks/update`, at once or one
        at a time. Only a job started as a 2026-07-28 task can ask, and only for what its client declared
        it can answer; otherwise this raises `InputNotPossible`, whose message ends the job (as its tool
        error) unless the body catches it. Async bodies only.
        """
        job = self._job
        InputRequired(requests)  # the same checks: at least one request, each of a known kind
        if job.input_capabilities is None:
            raise InputNotPossible(
                f"Tool '{job.tool}' asked for input, but job {job.id} has no client that can answer: only a "
                "job started as an MCP task of protocol 2026-07-28 (a client declaring the "
                "io.modelcontextprotocol/tasks extension) can ask"
            )
        needed = {REQUEST_CAPABILITIES[str(r["method"])] for r in requests.values()}
        missing = sorted(needed - job.input_capabilities)
        if missing:
            raise InputNotPossible(
                f"Tool '{job.tool}' asked for input its client did not declare it can give "
                f"(missing capabilities: {', '.join(missing)})"
            )
        loop = asyncio.get_running_loop()
        waiting: dict[str, tuple[str, asyncio.Future[dict[str, Any]]]] = {}
        for key, request in requests.items():
            wire, serial = key, 1
            while wire in self._issued:
                serial += 1
                wire = f"{key}-{serial}"
            self._issued.add(wire)
            waiting[key] = (wire, loop.create_future())
            self._answers[wire] = waiting[key][1]
            job.input_requests[wire] = dict(request)
        job.status = "input_required"
        self._changed()
        try:
            return {key: await future for key, (_wire, future) in waiting.items()}
        finally:
            for wire, _future in waiting.values():
                self._answers.pop(wire, None)
                job.input_requests.pop(wire, None)
            if not job.input_requests and job.status == "input_required":
                job.status = "working"

    def answer(self, responses: Mapping[str, Any]) -> None:
        """Deliver a client's answers (MCP `tasks/update`): keys not pending are ignored, as MCP says."""
        job = self._job
        for wire, response in responses.items():
            future = self._answers.pop(wire, None)
            if future is None or future.done():
                continue
            job.input_requests.pop(wire, None)
            future.set_result(dict(response))
        if not job.input_requests and job.status == "input_required":
            job.status = "working"
        self._changed()

    def cancel(self) -> None:
        """Mark the job cancelled (the runner also cancels an async body's task)."""
        self._cancel.set()

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()

    def __repr__(self) -> str:
        return f"<JobContext {self._job.id} {self._job.tool} {self._job.status}>"


MeshJob = JobContext
