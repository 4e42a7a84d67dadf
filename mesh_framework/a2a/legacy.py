"""MCP Mesh's A2A dialect (`tasks/send|get|cancel|sendSubscribe|resubscribe`) translated onto the
a2a-sdk handler, so both dialects share one task store. A client's task ids are its own: each is mapped,
per owner, to the handler's."""

from __future__ import annotations

import json
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import Any

from a2a.server.context import ServerCallContext
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    SendMessageRequest,
    SubscribeToTaskRequest,
    Task,
    TaskArtifactUpdateEvent,
    TaskStatusUpdateEvent,
)
from a2a.utils.errors import A2AError
from google.protobuf.json_format import MessageToDict, ParseDict, ParseError  # type: ignore[import-untyped]
from starlette.responses import JSONResponse, Response, StreamingResponse

from ..sse import MEDIA_TYPE, encode
from .admission import rpc_error
from .call_context import SKILL_STATE
from .direct import DirectSend
from .legacy_tasks import legacy_artifact, legacy_plain_task, legacy_status, legacy_task
from .messages import read_message
from .requests import as_dict
from .skills import A2aSkill

__all__ = ["LEGACY_IDS_KEPT", "LEGACY_METHODS", "STREAM_HEADERS", "LegacyDialect"]

LEGACY_METHODS = ("tasks/send", "tasks/get", "tasks/cancel", "tasks/sendSubscribe", "tasks/resubscribe")
STREAM_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}
LEGACY_IDS_KEPT = 1000


class LegacyDialect:
    """MCP Mesh's `tasks/*` JSON-RPC, translated onto the a2a-sdk handler (one task store)."""

    def __init__(
        self, handler: DefaultRequestHandler, skills: dict[str, A2aSkill], direct: DirectSend
    ) -> None:
        self.handler = handler
        self.skills = skills
        self.direct = direct
        # (owner, the client's task id) -> the handler's: a client's ids are its own
        self.ids: OrderedDict[tuple[str, str], str] = OrderedDict()

    async def __call__(self, body: dict[str, Any], context: ServerCallContext) -> Response:
        request_id = body.get("id")
        method = body.get("method")
        params = as_dict(body.get("params"))
        if method in ("tasks/send", "tasks/sendSubscribe"):
            message = params.get("message")
            if not isinstance(message, dict) or not isinstance(message.get("parts"), list):
                return rpc_error(
                    request_id,
                    -32602,
                    f"Invalid params: 'message' with a list of 'parts' is required for {method}",
                )
        try:
            if method == "tasks/send":
                skill = self.skills.get(str(context.state.get(SKILL_STATE)))
                # a background skill answers at once, `working` (MCP Mesh's long-running tasks)
                result = await self._send(
                    params, context, skill is not None and skill.wrapper.spec.background
                )
                return JSONResponse({"jsonrpc": "2.0", "id": request_id, "result": result})
            if method == "tasks/sendSubscribe":
                request: SendMessageRequest = ParseDict(
                    self._wire(params, context.state.get(SKILL_STATE)), SendMessageRequest()
                )
                return StreamingResponse(
                    self._subscribe(request_id, params, request, context),
                    media_type=MEDIA_TYPE,
                    headers=STREAM_HEADERS,
                )
            task_id = params.get("id")
            if not isinstance(task_id, str) or not task_id:
                return rpc_error(request_id, -32602, f"Invalid params: 'id' is required for {method}")
            inner = self.ids.get((context.user.user_name, task_id), task_id)
            if method in ("tasks/get", "tasks/resubscribe"):
                task = await self.handler.on_get_task(GetTaskRequest(id=inner), context)
                if method == "tasks/resubscribe" and task is not None:  # from the current state, no replay
                    frames = self._resubscribe(request_id, task_id, task, context)
                    return StreamingResponse(frames, media_type=MEDIA_TYPE, headers=STREAM_HEADERS)
            else:
                task = await self.handler.on_cancel_task(CancelTaskRequest(id=inner), context)
            if task is None:
                return rpc_error(request_id, -32602, f"Unknown task id: {task_id}")
            return JSONResponse({"jsonrpc": "2.0", "id": request_id, "result": legacy_task(task, task_id)})
        except ParseError as exc:  # a part protobuf cannot hold (a data part that is not an object, ...)
            return rpc_error(request_id, -32602, f"Invalid params: {' '.join(str(exc).split())[:300]}")
        except A2AError as exc:
            code = -32602 if "not found" in str(exc).lower() else -32603
            text = f"Unknown task id: {params.get('id')}" if code == -32602 else str(exc)
            return rpc_error(request_id, code, text)

    def _wire(self, params: dict[str, Any], skill: Any, at_once: bool = False) -> dict[str, Any]:
        """MCP Mesh's `params` as the current dialect's `SendMessage` params (JSON); `skill`, the one
        decided for the request, is the only skill it names."""
        message = as_dict(params.get("message"))
        parts = []
        for part in message.get("parts") or []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append({"text": part["text"]})
            elif isinstance(part, dict) and "data" in part:
                parts.append({"data": part["data"]})
        wire: dict[str, Any] = {
            "message": {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": parts}
        }
        if isinstance(skill, str):
            wire["message"]["metadata"] = {"skill": skill}
        if at_once:
            wire["configuration"] = {"returnImmediately": True}
        return wire

    def _remember(self, context: ServerCallContext, outer: str, inner: str) -> None:
        self.ids[(context.user.user_name, outer)] = inner
        while len(self.ids) > LEGACY_IDS_KEPT:
            self.ids.popitem(last=False)

    async def _send(
        self, params: dict[str, Any], context: ServerCallContext, at_once: bool
    ) -> dict[str, Any]:
        outer = str(params.get("id") or uuid.uuid4())  # MCP Mesh: a missing id is a UUID4
        named = context.state.get(SKILL_STATE)
        wire = self._wire(params, named, at_once)
        skill = None if at_once else self.direct.plain_skill(named)
        message = read_message(wire["message"]) if skill is not None else None
        if skill is not None and message is not None:  # protobuf's JSON conversion skipped both ways
            task: Any = await self.direct.run(skill, message, context)
            self._remember(context, outer, task.id)
            return legacy_plain_task(task, outer, wire["message"]["parts"])
        request: SendMessageRequest = ParseDict(wire, SendMessageRequest())
        if skill is not None:
            task = await self.direct.run(skill, request.message, context)
        else:
            task = await self.handler.on_message_send(request, context)
        self._remember(context, outer, task.id)
        return legacy_task(task, outer)

    async def _subscribe(
        self,
        request_id: Any,
        params: dict[str, Any],
        request: SendMessageRequest,
        context: ServerCallContext,
    ) -> AsyncIterator[bytes]:
        outer = str(params.get("id") or uuid.uuid4())  # MCP Mesh: a missing id is a UUID4
        events = self.handler.on_message_send_stream(request, context)
        async for frame in self._frames(request_id, outer, events, context):
            yield frame

    async def _resubscribe(
        self, request_id: Any, outer: str, task: Task, context: ServerCallContext
    ) -> AsyncIterator[bytes]:
        status = legacy_status(MessageToDict(task.status))
        final = status["state"] in ("completed", "failed", "canceled", "rejected")
        yield _frame(
            {"jsonrpc": "2.0", "id": request_id, "result": {"id": outer, "status": status, "final": final}}
        )
        if not final:
            async for frame in self._frames(request_id, outer, self._tail(task, context), context):
                yield frame

    async def _tail(self, task: Task, context: ServerCallContext) -> AsyncIterator[Any]:
        """A running task's next events; one that ended meanwhile gives its final status."""
        try:
            async for event in self.handler.on_subscribe_to_task(SubscribeToTaskRequest(id=task.id), context):
                yield event
        except A2AError:
            ended = await self.handler.on_get_task(GetTaskRequest(id=task.id), context)
            if ended is None:
                raise
            yield TaskStatusUpdateEvent(task_id=ended.id, context_id=ended.context_id, status=ended.status)

    async def _frames(
        self, request_id: Any, outer: str, events: AsyncIterator[Any], context: ServerCallContext
    ) -> AsyncIterator[bytes]:
        """The SDK's events of a task as MCP Mesh's stream frames."""
        try:
            async for event in events:
                result: dict[str, Any] | None = None
                if isinstance(event, Task):
                    self._remember(context, outer, event.id)
                elif isinstance(event, TaskArtifactUpdateEvent) and event.artifact.parts:
                    artifact = legacy_artifact(MessageToDict(event.artifact))
                    result = {"id": outer, "artifact": artifact}
                elif isinstance(event, TaskStatusUpdateEvent):
                    status = legacy_status(MessageToDict(event.status))
                    final = status["state"] in ("completed", "failed", "canceled", "rejected")
                    result = {"id": outer, "status": status, "final": final}
                if result is not None:
                    yield _frame({"jsonrpc": "2.0", "id": request_id, "result": result})
        except A2AError as exc:
            yield _frame({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32603, "message": str(exc)}})


def _frame(envelope: dict[str, Any]) -> bytes:
    return encode(json.dumps(envelope))
