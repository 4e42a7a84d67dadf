"""The job tools every agent serves: `__mesh_job_status`, `__mesh_job_result`, `__mesh_job_cancel` (as
mcp-mesh does, tags `mesh-jobs`, `framework`) and `get_server_status`."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import ToolExecutionError
from ..specs import ToolSpec
from ..tools.signature import analyze_signature
from ..tools.wrapper import MeshToolWrapper
from .model import Job
from .store import UnknownJobError

if TYPE_CHECKING:
    from ..tools.wrapper_registry import MeshToolWrapperRegistry
    from .client import RegistryJobClient
    from .runner import JobRunner

__all__ = ["JOB_TOOLS", "JobTools"]

logger = logging.getLogger("mesh_framework.jobs")

TAGS = ("mesh-jobs", "framework")
JOB_TOOLS = ("__mesh_job_status", "__mesh_job_result", "__mesh_job_cancel", "get_server_status")
MESSAGES_SHOWN = 50


class JobOwner(Protocol):
    """What the job tools read of the agent's job service (`JobService`)."""

    runner: JobRunner
    client: RegistryJobClient | None

    def cancel_local(self, job_id: str, reason: str | None = None, *, report: bool = True) -> Job: ...

    async def follow_registry(self, job_id: str) -> None: ...


class JobTools:
    """The four tools, answering from this agent's jobs first and from the registry for the others."""

    def __init__(self, service: JobOwner) -> None:
        self.service = service

    def _local(self, job_id: str) -> Job | None:
        return self.service.runner.store.find(job_id)

    async def _remote(self, job_id: str) -> dict[str, Any]:
        client = self.service.client
        if client is None:
            raise ToolExecutionError(str(UnknownJobError(job_id)))
        from .client import JobApiError  # a client: the agent joined a registry, which loaded it

        try:
            return await client.get(job_id)
        except JobApiError as exc:
            if exc.status == 404:
                raise ToolExecutionError(str(UnknownJobError(job_id))) from None
            raise ToolExecutionError(str(exc)) from None

    async def job_status(self, job_id: str) -> dict[str, Any]:
        """[Framework] The job's state (status, progress, progress_message, messages, result, error)."""
        job = self._local(job_id)
        if job is None:
            return await self._remote(job_id)
        if not job.terminal and job.submitted_by == "registry":
            # it lives in the registry, which may have cancelled it before the cancel reached this agent
            await self.service.follow_registry(job_id)
        return job.to_row()

    async def job_result(self, job_id: str) -> dict[str, Any]:
        """[Framework] The job's outcome `{status, result, error}`, without waiting: a running job answers
        with its status and no result yet; poll again until it is completed, failed or cancelled."""
        row = await self.job_status(job_id)
        return {"status": row.get("status"), "result": row.get("result"), "error": row.get("error")}

    async def job_cancel(self, job_id: str, reason: str | None = None) -> dict[str, Any]:
        """[Framework] Cancel the job (queued or running); a job that already finished is an error."""
        job = self._local(job_id)
        if job is not None:
            try:
                self.service.cancel_local(job_id, reason)
            except ValueError as exc:
                raise ToolExecutionError(str(exc)) from None
            return {"ok": True, "job_id": job_id}
        row = await self._remote(job_id)
        if row.get("status") in ("completed", "failed", "cancelled"):
            raise ToolExecutionError(
                f"Job {job_id} already finished ({row.get('status')}); there is nothing to cancel. "
                "Read its outcome with __mesh_job_result"
            )
        assert self.service.client is not None
        from .client import JobApiError

        try:
            await self.service.client.cancel(job_id, reason)
        except JobApiError as exc:
            raise ToolExecutionError(str(exc)) from None
        return {"ok": True, "job_id": job_id}

    async def server_status(self) -> dict[str, Any]:
        """The latest job of this agent: `{status: idle|running|completed|failed|cancelled,
        command, runtimeSeconds, messages}`."""
        store = self.service.runner.store
        running = [j for j in store if j.status == "working"]
        job = running[-1] if running else store.latest()
        if job is None:
            return {"status": "idle", "command": None, "runtimeSeconds": 0, "messages": []}
        status = "running" if job.status in ("working", "input_required", "queued") else job.status
        return {
            "status": status,
            "command": job.describe(),
            "runtimeSeconds": job.runtime_seconds,
            "messages": list(job.messages)[-MESSAGES_SHOWN:],
            "jobId": job.id,
        }

    def install(self, tools: MeshToolWrapperRegistry) -> None:
        """Serve the four tools, except where a tool of that name exists (logged: the name is reserved)."""
        entries: list[tuple[str, Callable[..., Awaitable[dict[str, Any]]], tuple[str, ...]]] = [
            ("__mesh_job_status", self.job_status, TAGS),
            ("__mesh_job_result", self.job_result, TAGS),
            ("__mesh_job_cancel", self.job_cancel, TAGS),
            ("get_server_status", self.server_status, ("jobs",)),
        ]
        for name, function, tags in entries:
            if tools.get(name) is not None:
                logger.error("tool '%s' is a job tool's name; the agent's own tool keeps it", name)
                continue
            spec = ToolSpec(function=function, name=name, tags=tags)
            signature = analyze_signature(function, model_name=f"{name}_arguments", dependency_count=0)
            description = (function.__doc__ or "").split("\n\n")[0].replace("\n        ", " ").strip()
            wrapper = MeshToolWrapper(
                key=f"mesh_framework.jobs.{name}",
                name=name,
                spec=spec,
                signature=signature,
                target=function,
                description=description,
                timeout=None,
            )
            tools.add(wrapper)
