"""`JobHandle`: a consumer's view of a job it submitted through the registry (`await dep.submit(...)`)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from ..errors import ToolExecutionError
from .client import JobApiError, RegistryJobClient

__all__ = ["JobHandle"]

TERMINAL = frozenset({"completed", "failed", "cancelled"})


class JobHandle:
    """A submitted job: poll it, await its result, cancel it, read its events.

    Usage::

        @mesh_tool(dependencies=["reindex"])
        async def nightly(reindex: McpMeshTool) -> dict:
            job = await reindex.submit(index="books")
            return await job.result(timeout=600)
    """

    __slots__ = ("capability", "client", "id")

    def __init__(self, client: RegistryJobClient, job_id: str, capability: str) -> None:
        self.client = client
        self.id = job_id
        self.capability = capability

    async def status(self) -> dict[str, Any]:
        """The job row as the registry holds it now (`status`, `progress`, `progress_message`, ...)."""
        try:
            return await self.client.get(self.id)
        except JobApiError as exc:
            raise ToolExecutionError(str(exc), tool=self.capability) from None

    async def result(self, timeout: float | None = None, *, poll: float = 0.05) -> Any:
        """Wait for the job to finish and return its result; a failed or cancelled job raises
        ToolExecutionError, and `timeout` seconds without an end raise TimeoutError. Polls back off from
        `poll` to 2 s."""
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = poll
        while True:
            row = await self.status()
            status = row.get("status")
            if status == "completed":
                return row.get("result")
            if status in TERMINAL:
                raise ToolExecutionError(
                    f"job {self.id} of '{self.capability}' {status}: {row.get('error') or 'no reason given'}",
                    tool=self.capability,
                )
            if deadline is not None and time.monotonic() + delay > deadline:
                raise TimeoutError(f"job {self.id} of '{self.capability}' still {status} after {timeout}s")
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)

    async def cancel(self, reason: str | None = None) -> bool:
        """Ask the registry to cancel the job (forwarded to the agent running it); False if it had already
        finished."""
        try:
            await self.client.cancel(self.id, reason)
        except JobApiError as exc:
            if exc.status == 409:
                return False
            raise ToolExecutionError(str(exc), tool=self.capability) from None
        return True

    async def events(self, after: int = 0, *, wait: float = 0) -> list[dict[str, Any]]:
        """The job's events after sequence number `after` (a long poll of up to `wait` seconds)."""
        try:
            answer = await self.client.events(self.id, after=after, wait=wait)
        except JobApiError as exc:
            raise ToolExecutionError(str(exc), tool=self.capability) from None
        return list(answer.get("events") or [])

    async def send_event(self, kind: str, payload: Any = None) -> dict[str, Any]:
        """Post an event into the job's channel (MCP Mesh's `send_event`)."""
        try:
            return await self.client.post_event(self.id, kind, payload)
        except JobApiError as exc:
            raise ToolExecutionError(str(exc), tool=self.capability) from None

    def __repr__(self) -> str:
        return f"<JobHandle {self.id} of {self.capability}>"
