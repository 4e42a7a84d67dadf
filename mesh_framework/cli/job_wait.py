"""`mesh call --wait`: follow the job a background tool answered with until it ends.

The job is polled with the agent's `__mesh_job_status` (backing off from 0.1 s to 1 s); on a terminal its
progress shows on a status line on stderr. Ctrl-C cancels the job (`__mesh_job_cancel`) before the command
exits 130, so nothing keeps running unseen.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Mapping
from typing import Any

from ..jobs.model import TERMINAL
from .common import EXIT_ERROR, CliError
from .output import console, is_terminal

__all__ = ["EXIT_INTERRUPTED", "job_id_of", "job_value", "wait_for_job"]

EXIT_INTERRUPTED = 130
FIRST_POLL, LONGEST_POLL = 0.1, 1.0


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


async def wait_for_job(call_tool: Any, job_id: str, tool: str) -> dict[str, Any]:
    """The job's last row once it completed. `call_tool(name, arguments)` calls a tool of the agent that
    runs it. A failed or cancelled job, and an interrupt (the job is cancelled first), are CliErrors."""
    line = _StatusLine(job_id) if is_terminal(sys.stderr) else None
    delay = FIRST_POLL
    try:
        while True:
            row: dict[str, Any] = await call_tool("__mesh_job_status", {"job_id": job_id})
            if row.get("status") in TERMINAL:
                break
            if line is not None:
                line.show(row)
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, LONGEST_POLL)
    except asyncio.CancelledError:  # Ctrl-C: asyncio.run cancels the command's task
        with contextlib.suppress(Exception):
            await call_tool("__mesh_job_cancel", {"job_id": job_id, "reason": "mesh call was interrupted"})
        raise CliError(f"interrupted; job {job_id} of '{tool}' was cancelled", EXIT_INTERRUPTED) from None
    finally:
        if line is not None:
            line.close()
    if row["status"] != "completed":
        reason = row.get("error") or row["status"]
        raise CliError(f"job {job_id} of '{tool}' {row['status']}: {reason}", EXIT_ERROR)
    return row


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
        self.status.update(f"job {self.job_id} {row.get('status')}{percent}{message}")

    def close(self) -> None:
        self.status.stop()
