"""The SDK's tasks, statuses and artifacts as MCP Mesh's dialect writes them (`tasks/*` answers and
stream frames: parts `{"type": "text", ...}`, states `completed`, ..., no `submitted`)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from a2a.types import Task, TaskState
from google.protobuf.json_format import MessageToDict  # type: ignore[import-untyped]

from .wire import state_name

__all__ = ["legacy_artifact", "legacy_parts", "legacy_plain_task", "legacy_status", "legacy_task"]


def legacy_parts(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The current dialect's text and data parts as MCP Mesh's (`type` named); other parts dropped."""
    out = []
    for part in parts:
        if "text" in part:
            out.append({"type": "text", "text": part["text"]})
        elif "data" in part:
            out.append({"type": "data", "data": part["data"]})
    return out


def legacy_artifact(artifact: dict[str, Any]) -> dict[str, Any]:
    """An artifact (the current dialect's JSON) as MCP Mesh's."""
    return {
        "name": artifact.get("name", "result"),
        "parts": legacy_parts(artifact.get("parts", [])),
        "index": 0,
    }


def legacy_status(status: dict[str, Any]) -> dict[str, Any]:
    """A task status (the current dialect's JSON) as MCP Mesh's, timestamped."""
    state = state_name(status.get("state"))
    out: dict[str, Any] = {
        "state": "working" if state == "submitted" else state,  # MCP Mesh's dialect has no `submitted`
        "timestamp": status.get("timestamp") or datetime.now(UTC).isoformat().replace("+00:00", "Z"),
    }
    message = status.get("message")
    if isinstance(message, dict):
        out["message"] = {"role": "agent", "parts": legacy_parts(message.get("parts", []))}
    return out


def legacy_task(task: Any, outer: str) -> dict[str, Any]:
    """A task as MCP Mesh's dialect answers it, under the client's own id `outer` (user history only)."""
    wire = MessageToDict(task)
    history = [
        {
            "role": "user" if m.get("role") == "ROLE_USER" else "agent",
            "parts": legacy_parts(m.get("parts", [])),
        }
        for m in wire.get("history", [])
        if m.get("role") == "ROLE_USER"
    ]
    return {
        "id": outer,
        "sessionId": wire.get("contextId", outer),
        "status": legacy_status(wire.get("status", {})),
        "artifacts": [legacy_artifact(a) for a in wire.get("artifacts", [])],
        "history": history,
    }


def legacy_plain_task(task: Task, outer: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    """`legacy_task` of a task DirectSend ran from a message of text `parts`, without MessageToDict."""
    status: dict[str, Any] = {
        "state": "completed" if task.status.state == TaskState.TASK_STATE_COMPLETED else "failed",
        "timestamp": task.status.timestamp.ToJsonString(),
    }
    artifacts = []
    if task.status.HasField("message"):
        text = task.status.message.parts[0].text
        status["message"] = {"role": "agent", "parts": [{"type": "text", "text": text}]}
    else:
        text = task.artifacts[0].parts[0].text
        artifacts.append({"name": "result", "parts": [{"type": "text", "text": text}], "index": 0})
    return {
        "id": outer,
        "sessionId": task.context_id,
        "status": status,
        "artifacts": artifacts,
        "history": [{"role": "user", "parts": legacy_parts(parts)}],
    }
