"""`mesh call --wait`: follow the job a background tool answered with until it ends.

The job is polled with the agent's `__mesh_job_status` (backing off from 0.1 s to 1 s); on a terminal its
progress shows on a status line on stderr. When the agent stops answering (it refuses connections, or it
went away while a poll was in flight: `call_tool` raises Unreachable for both), the registry is asked for
the job (`GET /jobs/{id}`): a registry job is followed there to its end, so its terminal state and reason
are shown (an agent that stops fails its unfinished jobs with "agent stopped"); a job only that agent kept
(a background call's job lives in the agent's memory) is reported as lost, with its state when last seen.
Ctrl-C cancels the job (`__mesh_job_cancel`, or the registry's cancel) before the command exits 130,
and says whether the cancel went through, so nothing keeps running unseen.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ..jobs.model import TERMINAL
from .common import EXIT_ERROR, CliError, Unreachable
from .output import console, escape_controls, is_terminal

__all__ = ["EXIT_INTERRUPTED", "job_id_of", "job_value", "wait_for_job"]

EXIT_INTERRUPTED = 130
FIRST_POLL, LONGEST_POLL = 0.1, 1.0
REGISTRY_TIMEOUT = 5.0

CallTool = Callable[[str, dict[str, Any]], Awaitable[Any]]


def job_id_of(result: Mapping[str, Any]) -> str | None:
    """The job id of a background tool's answer (its job handle), or None for any other answer."""
    handle = result.get("structuredContent")
    if isinstance(handle, dict) and isinstance(handle.get("job_id"), str) and "poll" in handle:
        return str(handle["job_id"])
    return None


def job_value(row: Mapping[str, Any]) -> Any:
    """A completed job's result as `mesh call` shows a tool's value (a lone `result` key unwrapped)."""
    result = row.get("result")
    if isinstance(result, dict) and result.keys() == {"result"}:
        return result["result"]
    return result


async def wait_for_job(
    call_tool: CallTool, job_id: str, tool: str, *, registry: str | None = None
) -> dict[str, Any]:
    """The job's last row once it completed. `call_tool(name, arguments)` calls a tool of the agent that
    runs it, raising Unreachable when the agent refuses connections or goes away mid-request; `registry` is
    the registry's URL, asked when that agent stops answering. A failed or cancelled job, a lost one, and
    an interrupt (the job is cancelled first) are CliErrors."""
    follower = _Follower(call_tool, job_id, tool, registry)
    line = _StatusLine(job_id) if is_terminal(sys.stderr) else None
    delay = FIRST_POLL
    try:
        while True:
            row = await follower.poll()
            if row.get("status") in TERMINAL:
                break
            if line is not None:
                line.show(row)
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, LONGEST_POLL)
    except asyncio.CancelledError:  # Ctrl-C: asyncio.run cancels the command's task
        raise await follower.interrupted() from None
    finally:
        if line is not None:
            line.close()
        await follower.aclose()
    if row["status"] != "completed":
        reason = row.get("error") or row["status"]
        where = " (as the registry holds it: the agent stopped answering)" if follower.in_registry else ""
        raise CliError(f"job {job_id} of '{tool}' {row['status']}: {reason}{where}", EXIT_ERROR)
    return row


class _Follower:
    """Where the job is read: its agent, then the registry once the agent stopped answering."""

    def __init__(self, call_tool: CallTool, job_id: str, tool: str, registry: str | None) -> None:
        self.call_tool = call_tool
        self.job_id = job_id
        self.tool = tool
        self.registry = registry
        self.in_registry = False
        self.last: Mapping[str, Any] | None = None
        self._http: Any = None
        self._jobs: Any = None

    async def poll(self) -> dict[str, Any]:
        if self.in_registry:
            row = await self._registry_row(None)
        else:
            try:
                row = await self.call_tool("__mesh_job_status", {"job_id": self.job_id})
            except Unreachable as exc:
                row = await self._registry_row(exc)
        self.last = row
        return row

    async def _registry_row(self, cause: Unreachable | None) -> dict[str, Any]:
        from ..jobs.client import JobApiError

        problem = "there is no registry to ask"
        if self.registry is not None:
            try:
                row: dict[str, Any] = await (await self._client()).get(self.job_id)
            except JobApiError as exc:
                problem = (
                    "the registry does not know it (a background call's job lives in the memory of the "
                    "agent that runs it)"
                    if exc.status == 404
                    else f"the registry could not be asked ({exc})"
                )
            else:
                self.in_registry = True
                return row
        seen = _describe(self.last)
        if cause is None:
            raise Unreachable(
                f"the registry stopped answering while job {self.job_id} of '{self.tool}' was {seen}: "
                f"{problem}"
            )
        raise Unreachable(
            f"{cause}; job {self.job_id} of '{self.tool}' was {seen} when last seen; {problem}, so its "
            "outcome cannot be read"
        )

    async def interrupted(self) -> CliError:
        """Cancel the job after Ctrl-C; the error to exit with says whether the cancel went through."""
        reason = "mesh call was interrupted"
        try:
            if self.in_registry:
                await (await self._client()).cancel(self.job_id, reason)
            else:
                await self.call_tool("__mesh_job_cancel", {"job_id": self.job_id, "reason": reason})
        except Exception as exc:
            from ..jobs.client import JobApiError

            unknown = isinstance(exc, Unreachable) or (isinstance(exc, JobApiError) and exc.status == 0)
            return CliError(
                f"interrupted; job {self.job_id} of '{self.tool}' was not cancelled: {exc}"
                + ("; it may still be running" if unknown else ""),
                EXIT_INTERRUPTED,
            )
        return CliError(f"interrupted; job {self.job_id} of '{self.tool}' was cancelled", EXIT_INTERRUPTED)

    async def _client(self) -> Any:
        if self._jobs is None:
            import httpx2

            from ..config.loader import load_settings
            from ..jobs.client import RegistryJobClient
            from ..security.tls import client_ssl_context

            assert self.registry is not None
            settings = load_settings().settings  # registry.token and tls.* apply to the CLI too
            token = settings.registry.token
            headers = {"Authorization": f"Bearer {token.get_secret_value()}"} if token else {}
            verify = client_ssl_context(settings.tls)
            self._http = httpx2.AsyncClient(trust_env=False, verify=verify, headers=headers)
            self._jobs = RegistryJobClient(self._http, self.registry, "mesh-cli", timeout=REGISTRY_TIMEOUT)
        return self._jobs

    async def aclose(self) -> None:
        if self._http is not None:
            with contextlib.suppress(Exception):
                await self._http.aclose()


def _describe(row: Mapping[str, Any] | None) -> str:
    if row is None:
        return "not yet read"
    progress = row.get("progress")
    percent = f" {progress:.0%}" if isinstance(progress, int | float) and progress else ""
    message = f" ({row['progress_message']})" if row.get("progress_message") else ""
    return escape_controls(f"{row.get('status')}{percent}{message}")  # the job's words, one line


class _StatusLine:
    """A rich status line on stderr: the job's status, progress and latest message."""

    def __init__(self, job_id: str) -> None:
        self.job_id = job_id
        self.status = console(stderr=True).status(f"job {job_id}: started", spinner="dots")
        self.status.start()

    def show(self, row: Mapping[str, Any]) -> None:
        progress = row.get("progress")
        percent = f" {progress:.0%}" if isinstance(progress, int | float) and progress else ""
        message = f": {row['progress_message']}" if row.get("progress_message") else ""
        self.status.update(escape_controls(f"job {self.job_id} {row.get('status')}{percent}{message}"))

    def close(self) -> None:
        self.status.stop()
