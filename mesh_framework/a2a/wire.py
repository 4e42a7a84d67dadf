"""The two A2A dialects as JSON: what a client sends and how an answer reads, for each.

`current` is the A2A specification the official `a2a-sdk` 1.x speaks (`SendMessage`, `GetTask`, ...,
`"role": "ROLE_USER"`, parts `{"text": ...}`, states `TASK_STATE_*`). `mcp-mesh` is the older dialect MCP
Mesh 3.8 serves (`tasks/send`, `tasks/get`, ..., parts `{"type": "text", ...}`, states `completed`, ...).
Pure data: no I/O, no `a2a-sdk` import.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .._frozen import frozen

__all__ = [
    "CARD_PATHS",
    "Dialect",
    "A2aEvent",
    "A2aTask",
    "cancel_request",
    "get_request",
    "read_event",
    "read_task",
    "send_request",
    "state_name",
]

Dialect = Literal["current", "mcp-mesh"]
CARD_PATHS: dict[Dialect, str] = {
    "current": "/.well-known/agent-card.json",
    "mcp-mesh": "/.well-known/agent.json",
}
METHODS: dict[Dialect, dict[str, str]] = {
    "current": {
        "send": "SendMessage",
        "stream": "SendStreamingMessage",
        "get": "GetTask",
        "cancel": "CancelTask",
    },
    "mcp-mesh": {
        "send": "tasks/send",
        "stream": "tasks/sendSubscribe",
        "get": "tasks/get",
        "cancel": "tasks/cancel",
    },
}
TERMINAL_STATES = frozenset({"completed", "failed", "canceled", "rejected"})


def state_name(state: Any) -> str:
    """`TASK_STATE_INPUT_REQUIRED` and `input-required` alike as `input-required`."""
    text = str(state or "unknown").lower()
    text = text.removeprefix("task_state_").replace("_", "-")
    return "canceled" if text == "cancelled" else text


@dataclass(slots=True)
class A2aTask:
    """A task as a peer answered it, in either dialect.

    `text` is the text of its artifacts joined (the skill's answer), `message` the text of its status
    message (progress, or why it failed), `progress` MCP Mesh's fraction when sent."""

    id: str
    state: str
    text: str = ""
    message: str = ""
    progress: float | None = None
    context_id: str | None = None
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        return self.state in TERMINAL_STATES

    def json(self) -> Any:
        """The answer's text parsed as JSON."""
        return json.loads(self.text)


@frozen
class A2aEvent:
    """One event of a streamed task: `kind` is `status`, `artifact`, `task` or `message`; `text` the
    artifact's (or status message's) text; `final` on the last."""

    kind: str
    task_id: str
    state: str | None = None
    text: str = ""
    final: bool = False
    raw: dict[str, Any] = field(default_factory=dict)


def _parts(text: str | None, data: Mapping[str, Any] | None, dialect: Dialect) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    if dialect == "current":
        if text is not None:
            parts.append({"text": text})
        if data is not None:
            parts.append({"data": dict(data)})
    else:
        if text is not None:
            parts.append({"type": "text", "text": text})
        if data is not None:
            parts.append({"type": "data", "data": dict(data)})
    return parts


def send_request(
    dialect: Dialect,
    request_id: int,
    *,
    text: str | None,
    data: Mapping[str, Any] | None,
    skill: str | None,
    stream: bool,
    wait: bool,
) -> dict[str, Any]:
    """A `send` (or `stream`) request: the text and/or data as one user message."""
    method = METHODS[dialect]["stream" if stream else "send"]
    parts = _parts(text, data, dialect)
    params: dict[str, Any]
    if dialect == "current":
        message: dict[str, Any] = {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": parts}
        if skill is not None:
            message["metadata"] = {"skill": skill}
        params = {"message": message}
        if not stream and not wait:
            params["configuration"] = {"returnImmediately": True}
    else:
        params = {"id": f"c-{uuid.uuid4().hex}", "message": {"role": "user", "parts": parts}}
        if skill is not None:
            params["metadata"] = {"skill": skill}
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def get_request(dialect: Dialect, request_id: int, task_id: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": METHODS[dialect]["get"], "params": {"id": task_id}}


def cancel_request(dialect: Dialect, request_id: int, task_id: str) -> dict[str, Any]:
    params = {"id": task_id}
    return {"jsonrpc": "2.0", "id": request_id, "method": METHODS[dialect]["cancel"], "params": params}


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def parts_text(parts: Any) -> str:
    """The text of a list of parts of either dialect (a data part as its JSON)."""
    out: list[str] = []
    for part in parts if isinstance(parts, list) else []:
        if not isinstance(part, dict):
            continue
        if isinstance(part.get("text"), str):
            out.append(part["text"])
        elif "data" in part:
            out.append(json.dumps(part["data"]))
    return "".join(out)


def read_task(result: Any) -> A2aTask:
    """A `send`/`get`/`cancel` result of either dialect (a current `{"task": ...}` or `{"message": ...}`
    wrapper, or the task itself) as an A2aTask."""
    if isinstance(result, dict) and isinstance(result.get("task"), dict):
        result = result["task"]
    if isinstance(result, dict) and isinstance(result.get("message"), dict) and "status" not in result:
        message = result["message"]  # a direct reply, no task
        return A2aTask(
            id=str(message.get("taskId") or message.get("messageId") or ""),
            state="completed",
            text=parts_text(message.get("parts")),
            context_id=message.get("contextId"),
            raw=result,
        )
    if not isinstance(result, dict) or "id" not in result:
        raise ValueError(f"not an A2A task: {json.dumps(result)[:200]}")
    status = _dict(result.get("status"))
    artifacts = result.get("artifacts")
    artifacts = artifacts if isinstance(artifacts, list) else []
    metadata = _dict(result.get("metadata"))
    progress = metadata.get("progress")
    return A2aTask(
        id=str(result["id"]),
        state=state_name(status.get("state")),
        text="".join(parts_text(a.get("parts")) for a in artifacts if isinstance(a, dict)),
        message=parts_text(_dict(status.get("message")).get("parts")),
        progress=float(progress) if isinstance(progress, (int, float)) else None,
        context_id=result.get("contextId") or result.get("sessionId"),
        raw=result,
    )


def read_event(result: Any) -> A2aEvent:
    """One streamed result of either dialect as an A2aEvent."""
    if not isinstance(result, dict):
        raise ValueError(f"not an A2A stream event: {json.dumps(result)[:200]}")
    if isinstance(result.get("statusUpdate"), dict):  # current
        update = result["statusUpdate"]
        status = update.get("status") or {}
        state = state_name(status.get("state"))
        return A2aEvent(
            "status",
            str(update.get("taskId", "")),
            state,
            parts_text((status.get("message") or {}).get("parts")),
            final=state in TERMINAL_STATES or bool(update.get("final")),
            raw=result,
        )
    if isinstance(result.get("artifactUpdate"), dict):
        update = result["artifactUpdate"]
        artifact = update.get("artifact") or {}
        return A2aEvent(
            "artifact", str(update.get("taskId", "")), None, parts_text(artifact.get("parts")), raw=result
        )
    if isinstance(result.get("task"), dict):
        task = read_task(result["task"])
        return A2aEvent("task", task.id, task.state, task.text, final=task.done, raw=result)
    if isinstance(result.get("message"), dict):
        message = result["message"]
        return A2aEvent(
            "message",
            str(message.get("taskId") or ""),
            "completed",
            parts_text(message.get("parts")),
            final=True,
            raw=result,
        )
    if isinstance(result.get("artifact"), dict):  # mcp-mesh
        artifact = result["artifact"]
        return A2aEvent(
            "artifact", str(result.get("id", "")), None, parts_text(artifact.get("parts")), raw=result
        )
    if isinstance(result.get("status"), dict):
        status = result["status"]
        state = state_name(status.get("state"))
        return A2aEvent(
            "status",
            str(result.get("id", "")),
            state,
            parts_text((status.get("message") or {}).get("parts")),
            final=bool(result.get("final")),
            raw=result,
        )
    raise ValueError(f"not an A2A stream event: {json.dumps(result)[:200]}")
