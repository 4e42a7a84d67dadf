"""`JobService`: jobs wired into an agent: the runner on its background and task tools, the job tools, the
agent's `POST /jobs/{id}/cancel` route, `X-Mesh-Job-Id` dispatch, and, once the agent joins a registry, the
claim loops, the progress reporter and the consumers' `submit`.

When the agent stops (`stop(grace)`): claims end and no job starts; running jobs get `grace` seconds, then
end `failed` with "agent stopped" (one log line each); the final states of registry jobs are reported to
the registry, and a report that cannot be delivered is logged on one line."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..config.settings import MeshSettings
from ..errors import ToolExecutionError
from ..tools.wrapper import MeshToolWrapper
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .experimental_tasks import ExperimentalTasks
from .mcp_tasks import TASKS_EXTENSION, McpTasks
from .model import Job
from .runner import DISPATCH, STOPPED, Dispatch, JobRunner
from .tools import JobTools

if TYPE_CHECKING:  # the registry's job API: loaded when the agent joins a registry
    from .client import RegistryJobClient
    from .handle import JobHandle

__all__ = ["JobService", "uses_jobs"]

logger = logging.getLogger("mesh_framework.jobs")

FLUSH_SECONDS = 1.0  # progress deltas are coalesced this long (MCP Mesh: 2 s); final states go at once
RENEW_SECONDS = 60.0  # a registry job's lease (300 s) is renewed by a report at least this often
MAX_BACKOFF = 5.0
CLAIM_WAIT = 1.0  # seconds a stopping agent waits for a claim in flight, at least


class JobService:
    """Everything jobs add to one agent: installed on its tools once the registry holds all of them
    (`install`), attached to its app once built, joined to a registry with the agent (jobs/beans.py)."""

    def __init__(
        self, settings: MeshSettings, tools: MeshToolWrapperRegistry, factory: Any, web_plan: Any = None
    ) -> None:
        self.settings = settings
        self.tools = tools
        self.web_plan = web_plan
        self.runner = JobRunner(settings.jobs)
        self.used = False  # installed on an agent that uses jobs (`uses_jobs`)
        self.client: RegistryJobClient | None = None
        self.factory = factory  # the proxy factory: its HTTP client, and `submit` for its proxies
        self._dirty: dict[str, Job] = {}
        self._claims: list[asyncio.Task[None]] = []
        self._flusher: asyncio.Task[None] | None = None
        self._flushing: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        self._stopping = asyncio.Event()  # wakes claim loops that back off, once the agent stops
        self._reporting = asyncio.Lock()  # one report at a time: a final report never overtakes a batch
        self._registered: asyncio.Event | None = None

    @property
    def job_tools(self) -> list[MeshToolWrapper]:
        return [w for w in self.tools if w.spec.background or w.spec.task]

    def install(self) -> None:
        """Route the background and task tools' calls through the runner and serve the job tools; once,
        after every other tool is in the registry. Nothing for an agent that turns out to use no job."""
        if self.used or not uses_jobs(self.settings, self.tools):
            return
        self.used = True
        self.runner.install(self.tools)
        serve = self.settings.jobs.serve_tools
        if serve is None:
            # As mcp-mesh: every MCP agent of a mesh answers for the mesh's jobs (they live in the
            # registry); a route-only agent (`api`, as MCP Mesh's route apps) runs none and serves none.
            joins = self.settings.registry.enabled and not _routes_only(self.tools, self.web_plan)
            serve = bool(self.job_tools) or joins
        if serve:
            JobTools(self).install(self.tools)

    # --- the agent's HTTP surface -----------------------------------------------------------------

    def attach(self, asgi: Any) -> None:
        """Add `POST /jobs/{id}/cancel` to the agent's app and read `X-Mesh-Job-Id` on task tools' calls."""
        if not self.used or getattr(asgi, "_mesh_jobs_attached", False):  # an app built again (tests)
            return
        asgi._mesh_jobs_attached = True
        endpoint = asgi.endpoint
        retention = self.settings.jobs.retention.max_age
        if any(w.spec.background for w in self.tools):  # MCP's tasks extension (2026-07-28)
            endpoint.tasks = McpTasks(self.runner, retention)
            endpoint.capabilities.setdefault("extensions", {})[TASKS_EXTENSION] = {}
        if self.job_tools:  # MCP's experimental tasks (2025-11-25)
            endpoint.experimental_tasks = ExperimentalTasks(self.runner, retention)
            endpoint.refresh_tools()
        asgi.web.router.routes.append(Route("/jobs/{job_id}/cancel", self._cancel_route, methods=["POST"]))
        if any(w.spec.task for w in self.tools):
            asgi.endpoint = _DispatchHeaders(asgi.endpoint)

    async def _cancel_route(self, request: Request) -> JSONResponse:
        job_id = request.path_params["job_id"]
        try:
            body = await request.json()
        except ValueError:
            body = {}
        reason = body.get("reason") if isinstance(body, dict) else None
        try:
            self.cancel_local(job_id, reason, report=False)
        except (LookupError, ValueError):
            return JSONResponse({"cancelled": False, "job_id": job_id})
        return JSONResponse({"cancelled": True, "job_id": job_id})

    def cancel_local(self, job_id: str, reason: str | None = None, *, report: bool = True) -> Job:
        """Cancel a job this agent runs; a registry job is cancelled in the registry too (`report`)."""
        job = self.runner.cancel(job_id, reason)
        if report and self.client is not None and job.submitted_by == "registry":
            self._spawn(self._cancel_remote(job_id, reason))
        return job

    async def follow_registry(self, job_id: str) -> None:
        """Read the registry's row of a registry job running here: if the registry cancelled it and the
        cancel has not reached this agent (MCP Mesh's registry answers a cancel and forwards it to the
        owner afterwards; a cancel sent before the job got here, or a failed forward, never arrives), end
        the job here as the forwarded cancel would, with the registry's error."""
        if self.client is None:
            return
        from .client import JobApiError

        try:
            row = await self.client.get(job_id)
        except JobApiError as exc:  # the registry is away: this agent's state is all there is
            logger.debug("job %s: the registry's row could not be read: %s", job_id, exc)
            return
        if row.get("status") != "cancelled":
            return
        with contextlib.suppress(LookupError, ValueError):  # gone, or ended meanwhile
            job = self.runner.cancel(job_id)
            error = row.get("error")
            job.error = error if isinstance(error, str) and error else job.error
            logger.info("job %s was cancelled in the registry: %s", job_id, job.error)

    async def _cancel_remote(self, job_id: str, reason: str | None) -> None:
        assert self.client is not None
        from .client import JobApiError

        try:
            await self.client.cancel(job_id, reason)
        except JobApiError as exc:
            logger.warning("job %s was cancelled here, but not in the registry: %s", job_id, exc)

    # --- the registry ------------------------------------------------------------------------------

    def joined(self, url: Callable[[], str], registered: asyncio.Event | None = None) -> None:
        """The agent joined a registry: report registry jobs there, claim work (once `registered` is set:
        the first heartbeat goes first), let consumers submit."""
        from .client import RegistryJobClient

        self._registered = registered
        self.factory.job_submitter = self.submit
        self.client = RegistryJobClient(
            self.factory.http, url, self.settings.agent.id or "", timeout=self.settings.registry.timeout
        )
        self.runner.reporter = self._report
        loop = asyncio.get_running_loop()
        self._flusher = loop.create_task(self._flush_loop())
        if self.settings.jobs.claim and self.runner.accepting:
            capabilities = {w.capability: w for w in self.job_tools}
            for capability, wrapper in capabilities.items():
                self._claims.append(loop.create_task(self._claim_loop(capability, wrapper)))

    async def submit(self, capability: str, arguments: Mapping[str, Any], **options: Any) -> JobHandle:
        """Submit a job to `capability` through the registry (what `McpMeshTool.submit` calls)."""
        if self.client is None:
            raise ToolExecutionError(
                f"cannot submit a job to '{capability}': the agent has not joined a registry "
                "(jobs live in the registry; enable registry.enabled or wait until the agent serves)",
                tool=capability,
            )
        from .client import JobApiError
        from .handle import JobHandle

        try:
            answer = await self.client.submit(capability, arguments, **options)
        except JobApiError as exc:
            raise ToolExecutionError(str(exc), tool=capability) from None
        return JobHandle(self.client, str(answer["id"]), capability)

    def _report(self, job: Job, final: bool) -> None:
        self._dirty[job.id] = job
        if final:
            self._wake.set()

    async def _flush_loop(self) -> None:
        renewed = time.monotonic()
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), FLUSH_SECONDS)
            self._wake.clear()
            if time.monotonic() - renewed >= RENEW_SECONDS:  # quiet jobs report anyway: leases renew
                renewed = time.monotonic()
                for job in self.runner.registry_jobs():
                    self._dirty.setdefault(job.id, job)
            if self._dirty:
                await self._flush()

    async def _flush(self, *, final: bool = False) -> None:
        """Report the changed jobs in one batch. A failed batch is kept for the next flush; a failed final
        one (the agent stops: there is no next) is logged on one line, naming each job's end."""
        async with self._reporting:
            if not self._dirty or self.client is None:
                return
            jobs, self._dirty = list(self._dirty.values()), {}
            try:
                answer = await self.client.report([_delta(job) for job in jobs])
            except Exception as exc:
                if final:
                    _log_undelivered(jobs, exc)
                    return
                logger.warning("could not report %d job update(s) to the registry: %s", len(jobs), exc)
                for job in jobs:  # try again on the next flush
                    self._dirty.setdefault(job.id, job)
                return
        for rejected in answer.get("rejected") or []:
            logger.info(
                "registry rejected the update of job %s: %s", rejected.get("id"), rejected.get("reason")
            )
            running = self.runner.store.find(str(rejected.get("id")))
            if rejected.get("reason") == "already_terminal" and running is not None and not running.terminal:
                # ended in the registry while it runs here: a cancel that never reached this agent
                # (sent before the job got here, or a forward that failed)
                self._spawn(self.follow_registry(running.id))

    async def _claim_loop(self, capability: str, wrapper: MeshToolWrapper) -> None:
        assert self.client is not None
        from .client import JobApiError

        delay = self.settings.jobs.claim_interval
        if self._registered is not None:
            await _first_of(self._registered, self._stopping)  # stopped before it registered: no claim
        while self.runner.accepting:
            claimed = None
            if self.runner.over_limit(wrapper) is None and _dependencies_resolved(wrapper):
                try:
                    claimed = await self.client.claim(capability)
                except JobApiError as exc:
                    logger.debug("claim for '%s' failed: %s", capability, exc)
            if claimed is None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stopping.wait(), delay)
                delay = min(delay * 2, MAX_BACKOFF)
                continue
            delay = self.settings.jobs.claim_interval
            self._spawn(self._run_claimed(wrapper, claimed))

    async def _run_claimed(self, wrapper: MeshToolWrapper, claimed: dict[str, Any]) -> None:
        job_id = str(claimed["id"])
        epoch = claimed.get("claim_epoch")
        DISPATCH.set(Dispatch(job_id, claimed.get("max_duration"), epoch if isinstance(epoch, int) else None))
        payload = claimed.get("submitted_payload") or {}
        result = await wrapper.call(payload if isinstance(payload, dict) else {})
        if result.get("isError") and self.runner.store.find(job_id) is None:
            # refused before the body ran (invalid arguments, unresolved dependency): fail the job
            text = "; ".join(c.get("text", "") for c in result.get("content") or [])
            assert self.client is not None
            from .client import JobApiError

            try:
                await self.client.report(
                    [{"id": job_id, "claim_epoch": epoch, "status": "failed", "error": text}]
                )
            except JobApiError as exc:
                logger.warning(
                    "could not deliver the final state of job %s to the registry (failed: %s): %s",
                    job_id,
                    text,
                    exc,
                )

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._flushing.add(task)
        task.add_done_callback(self._flushing.discard)

    def stop_accepting(self) -> None:
        """Start no job from now on: claims end, queued jobs end failed, new calls are refused."""
        self.runner.stop_accepting()
        self._stopping.set()

    async def stop(self, grace: float) -> None:
        """The agent stops: no new jobs; the running ones get `grace` seconds to end, then end `failed` with
        "agent stopped"; final states go to the registry (a report that cannot go is logged)."""
        self.stop_accepting()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace  # one grace for the claims in flight and the running jobs
        if self._claims:  # a claim in flight ends first: the job it brings is failed and reported too
            _done, pending = await asyncio.wait(self._claims, timeout=max(grace, CLAIM_WAIT))
            for task in pending:
                task.cancel()
            await asyncio.gather(*self._claims, return_exceptions=True)
            self._claims.clear()
        if not await self.runner.wait_running(deadline - loop.time()):
            await self.runner.abort(STOPPED)
        await asyncio.gather(*list(self._flushing), return_exceptions=True)  # claimed jobs refused
        await self._flush(final=True)

    async def leave(self) -> None:
        """The agent leaves the registry (it stops): jobs still running end now, final states are reported,
        and reporting ends."""
        await self.stop(0)
        if self._flusher is not None:
            async with self._reporting:  # not in the middle of a batch
                self._flusher.cancel()
            await asyncio.gather(self._flusher, return_exceptions=True)
            self._flusher = None
        await self._flush(final=True)

    async def aclose(self) -> None:
        await self.leave()
        await self.runner.aclose()
        await self._flush(final=True)
        for task in list(self._flushing):
            task.cancel()
        await asyncio.gather(*self._flushing, return_exceptions=True)
        self.client = None


async def _first_of(*events: asyncio.Event) -> None:
    """Wait until one of `events` is set."""
    waits = [asyncio.ensure_future(event.wait()) for event in events]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()


def _log_undelivered(jobs: list[Job], exc: BaseException) -> None:
    ends = "; ".join(f"{job.id} {job.status}" + (f" ({job.error})" if job.error else "") for job in jobs)
    logger.warning(
        "could not deliver the final state of %d job(s) to the registry: %s; it keeps their last "
        "reported state until their lease expires: %s",
        len(jobs),
        str(exc) or type(exc).__name__,
        ends,
    )
    logger.debug("final job report failed", exc_info=exc)


def uses_jobs(settings: MeshSettings, tools: Iterable[MeshToolWrapper]) -> bool:
    """The runner and the job tools are needed: a background or task tool (click commands' included), the
    job tools asked for (`jobs.serve_tools`), or a registry (every agent of a mesh answers for its jobs)."""
    if settings.registry.enabled or settings.jobs.serve_tools:
        return True
    return any(w.spec.background or w.spec.task for w in tools)


def _routes_only(tools: MeshToolWrapperRegistry, web_plan: Any) -> bool:
    """The agent serves web routes (or a FastAPI app) and no tool: it registers as `api`."""
    serves_web = web_plan is not None and bool(web_plan.routes or web_plan.fastapi)
    return serves_web and next(iter(tools), None) is None


def _dependencies_resolved(wrapper: MeshToolWrapper) -> bool:
    """Whether every required dependency of the tool has a provider (MCP Mesh claims only then); a
    service parameter's required methods count too."""
    return all(
        wrapper.slots[p.slot] is not None if p.kind == "tool" else not wrapper.service_missing(p)
        for p in wrapper.signature.injected
        if (p.kind == "tool" and not p.optional) or p.kind == "service"
    )


def _delta(job: Job) -> dict[str, Any]:
    delta: dict[str, Any] = {"id": job.id, "progress": job.progress}
    if job.claim_epoch is not None:
        delta["claim_epoch"] = job.claim_epoch
    if job.progress_message is not None:
        delta["progress_message"] = job.progress_message
    if job.terminal:
        delta["status"] = job.status
        if job.status == "completed":
            result = job.result
            delta["result"] = result if isinstance(result, dict) else {"value": result}
        elif job.error is not None:
            delta["error"] = job.error
    return delta


class _DispatchHeaders:
    """In front of the MCP endpoint: a call carrying `X-Mesh-Job-Id` (and no `X-Mesh-Calling-Job-Id`) runs
    bound to that registry job."""

    def __init__(self, endpoint: Any) -> None:
        self.endpoint = endpoint

    def __getattr__(self, name: str) -> Any:
        return getattr(self.endpoint, name)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        job_id = timeout = epoch = None
        for key, value in scope["headers"]:
            if key == b"x-mesh-job-id":
                job_id = value.decode("latin-1")
            elif key == b"x-mesh-calling-job-id":
                job_id = None
                break
            elif key == b"x-mesh-timeout":
                timeout = value
            elif key == b"x-mesh-claim-epoch":
                epoch = value
        if job_id is None:
            await self.endpoint(scope, receive, send)
            return
        token = DISPATCH.set(
            Dispatch(
                job_id,
                float(timeout) if timeout and timeout.replace(b".", b"").isdigit() else None,
                int(epoch) if epoch and epoch.isdigit() else None,
            )
        )
        try:
            await self.endpoint(scope, receive, send)
        finally:
            DISPATCH.reset(token)
