"""`Job`: one job's state, as the local store keeps it and MCP Mesh's registry serves it (its row shape)."""

from __future__ import annotations

import time
import uuid
from collections import deque
from dataclasses import field
from typing import Any, Literal

from .._frozen import record

__all__ = ["TERMINAL", "Job", "JobStatus", "new_job_id"]

JobStatus = Literal["queued", "working", "input_required", "completed", "failed", "cancelled"]
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})
MESSAGES_KEPT = 200  # last lines of output kept per job


def new_job_id() -> str:
    return str(uuid.uuid4())


@record(slots=True, eq=False)
class Job:
    """A job's state. Mutated only by its `JobContext` and its runner; read by the job tools."""

    id: str
    tool: str
    capability: str
    arguments: dict[str, Any] = field(default_factory=dict)
    status: JobStatus = "working"
    done: float = 0.0
    total: float | None = None
    progress_message: str | None = None
    messages: deque[str] = field(default_factory=lambda: deque(maxlen=MESSAGES_KEPT))
    result: Any = None
    answer: dict[str, Any] | None = None  # the tool's CallToolResult, for MCP's tasks/get
    error: str | None = None
    submitted_by: str | None = None
    owner: str | None = None  # who created it as an MCP task (the access token's subject), when known
    command: str | None = None  # what get_server_status shows; default the tool and its arguments
    claim_epoch: int | None = None
    internal: bool = False  # failed inside the framework (the result could not be served), not in the body
    max_duration: float | None = None  # seconds, from the registry (claim) or X-Mesh-Timeout (push)
    # Input a body asked its MCP task's client for (`JobContext.ask`): pending requests by wire key, and
    # the capabilities of the client that can answer them (None: no client can, e.g. a registry job).
    input_requests: dict[str, dict[str, Any]] = field(default_factory=dict)
    input_capabilities: frozenset[str] | None = None
    submitted_at: float = field(default_factory=time.time)
    started_at: float | None = None
    finished_at: float | None = None

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    @property
    def progress(self) -> float:
        """Progress as a fraction 0..1 (MCP Mesh's `progress`)."""
        value = self.done / self.total if self.total else self.done
        return max(0.0, min(1.0, value))

    @property
    def runtime_seconds(self) -> float:
        if self.started_at is None:
            return 0.0
        return round((self.finished_at or time.time()) - self.started_at, 3)

    def describe(self) -> str:
        """The job's command line as `get_server_status` shows it."""
        if self.command is not None:
            return self.command
        return " ".join([self.tool, *(f"{k}={v}" for k, v in self.arguments.items())])

    def to_row(self) -> dict[str, Any]:
        """The job as MCP Mesh's `GET /jobs/{id}` and `__mesh_job_status` answer (plus `messages`)."""
        return {
            "id": self.id,
            "capability": self.capability,
            "tool": self.tool,
            "status": self.status,
            "progress": self.progress,
            "progress_message": self.progress_message,
            "result": self.result,
            "error": self.error,
            "submitted_payload": self.arguments,
            "submitted_by": self.submitted_by,
            "submitted_at": int(self.submitted_at),
            "claim_epoch": self.claim_epoch,
            "messages": list(self.messages),
            "runtime_seconds": self.runtime_seconds,
        }
