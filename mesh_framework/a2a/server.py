"""The agent's A2A side: an Agent Card and JSON-RPC endpoints over its `@mesh_a2a` tools.

The A2A specification's dialect is served by the official `a2a-sdk` (its request handler, task store and
JSON-RPC dispatcher, v0.3 `message/send` too); this module gives it an executor that runs the skill's
tool. MCP Mesh's dialect (`tasks/send|get|cancel|sendSubscribe`) is translated onto the same handler, so
both dialects share one task store.

    GET  /.well-known/agent-card.json          the card, every skill (current dialect)
    POST {a2a.path}                            JSON-RPC; the skill from message metadata `skill`
    GET  {a2a.path}/{skill}/.well-known/agent-card.json | agent.json   one skill's card, either dialect
    POST {a2a.path}/{skill}                    JSON-RPC of either dialect for that skill

Each request is read once (requests.py): a JSON body (application/json only, strict JSON), the one skill
it runs (authorized by the guard, then run by the executor: both read it from the call context) and its
caller, who owns the tasks it makes (the store keeps tasks per owner; another caller's id reads as
unknown). The cards advertise `a2a.public_url`, else the agent's own host and port: never the request's
Host header.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

from a2a.auth.user import UnauthenticatedUser, User
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.context import ServerCallContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import DefaultServerCallContextBuilder
from a2a.server.routes.jsonrpc_dispatcher import JsonRpcDispatcher
from a2a.server.tasks import TaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Artifact,
    CancelTaskRequest,
    GetTaskRequest,
    HTTPAuthSecurityScheme,
    Message,
    Part,
    Role,
    SecurityRequirement,
    SecurityScheme,
    SendMessageRequest,
    StringList,
    SubscribeToTaskRequest,
    Task,
    TaskArtifactUpdateEvent,
    TaskState,
    TaskStatus,
    TaskStatusUpdateEvent,
)
from a2a.utils.errors import A2AError
from google.protobuf.json_format import MessageToDict, ParseDict, ParseError  # type: ignore[import-untyped]
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from ..config.settings import MeshSettings
from ..errors import ToolExecutionError
from ..security.authorization import verifier_from_settings
from ..security.verifiers import AccessToken
from ..tools.context import ToolContext
from ..tools.streaming import CHUNK_SINK
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .guard import A2aGuard
from .requests import BadRequest, decide_skill, is_json_body, owner_of, read_json, request_id
from .skills import A2aSkill, skills_of
from .store import BoundedTaskStore
from .wire import state_name

__all__ = ["skill_routes"]

logger = logging.getLogger("mesh_framework.a2a")

LEGACY_METHODS = ("tasks/send", "tasks/get", "tasks/cancel", "tasks/sendSubscribe", "tasks/resubscribe")
STREAM_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}
LEGACY_IDS_KEPT = 1000
SKILL_STATE = "mesh_a2a_skill"  # the call context's state: the skill decided for the request
CALL_SCOPE = "mesh_a2a_call"  # the ASGI scope: (skill decided, verified caller) of the request
JOB_PROGRESS_INTERVAL = 0.1  # seconds between looks at a running job's progress


def _skill_proto(skill: A2aSkill) -> AgentSkill:
    return AgentSkill(
        id=skill.id,
        name=skill.name,
        description=skill.description,
        tags=list(skill.tags),
        examples=list(skill.spec.examples),
        input_modes=list(skill.spec.input_modes),
        output_modes=list(skill.spec.output_modes),
    )


def arguments_of(skill: A2aSkill, text: str, data: dict[str, Any] | None) -> dict[str, Any]:
    """A message as the tool's arguments: a data part, a JSON object text, or the text as the tool's one
    required parameter. Raises ValueError saying what the skill expects."""
    if data is not None:
        return data
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            parsed = read_json(stripped)
        except BadRequest:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    schema = skill.wrapper.descriptor["inputSchema"]
    properties = list(schema.get("properties", {}))
    required = schema.get("required", [])
    target = required[0] if len(required) == 1 else properties[0] if len(properties) == 1 else None
    if target is None:
        raise ValueError(
            f"skill '{skill.id}' takes {sorted(properties)}: send them as a data part or a JSON object text"
        )
    return {target: text}


def _integral(value: Any) -> Any:
    """A data part's JSON as sent: protobuf's Struct holds every number as a double (3 arrives as 3.0),
    and a tool's integer parameter takes no 3.0, so a whole number is an int again."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {key: _integral(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_integral(item) for item in value]
    return value


def _message_input(message: Message | None) -> tuple[str, dict[str, Any] | None]:
    text: list[str] = []
    data: dict[str, Any] | None = None
    for part in message.parts if message is not None else []:
        if part.HasField("text"):
            text.append(part.text)
        elif part.HasField("data"):
            value = _integral(MessageToDict(part.data))
            if isinstance(value, dict):
                data = value
    return "".join(text), data


def _result_text(result: dict[str, Any]) -> str:
    return "".join(c.get("text", "") for c in result.get("content", []) if c.get("type") == "text")


def _too_large(size: int, limit: int) -> str:
    return (
        f"the result is larger than a2a.max_task_bytes ({size} > {limit} bytes): the task keeps no more; "
        "raise a2a.max_task_bytes or return less (a file: save it to the media store and return its URI)"
    )


class SkillExecutor(AgentExecutor):
    """Runs a message's skill (its tool), publishing progress and stream chunks as task updates."""

    def __init__(
        self, skills: dict[str, A2aSkill], runner: Any = None, max_task_bytes: int = 1024 * 1024
    ) -> None:
        self.skills = skills
        self.runner = runner  # the JobRunner of background tools' jobs
        self.max_task_bytes = max_task_bytes  # a result larger than this fails its task

    def skill_for(self, context: RequestContext) -> A2aSkill:
        """The skill decided for the request (requests.decide_skill), the one the guard authorized."""
        wanted = context.call_context.state.get(SKILL_STATE) if context.call_context else None
        skill = self.skills.get(wanted) if isinstance(wanted, str) else None
        if skill is None:
            known = ", ".join(sorted(self.skills))
            raise ValueError(
                f"unknown A2A skill {wanted!r}; this agent serves: {known}. Name it in the message "
                "metadata ('skill') or post to the skill's own endpoint"
                if wanted is not None
                else f"this agent serves several A2A skills ({known}); name one in the message metadata "
                "('skill') or post to the skill's own endpoint"
            )
        return skill

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        if context.current_task is None and context.message is not None:
            # not the SDK's new_task_from_user_message: it raises for an empty text part or another role
            message = context.message
            task = Task(
                id=context.task_id or message.task_id or str(uuid.uuid4()),
                context_id=context.context_id or message.context_id or str(uuid.uuid4()),
                status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED),
                history=[message],
            )
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
        await updater.start_work()
        try:
            skill = self.skill_for(context)
            text, data = _message_input(context.message)
            arguments = arguments_of(skill, text, data)
        except ValueError as exc:
            await updater.failed(updater.new_agent_message([Part(text=str(exc))]))
            return
        wrapper = skill.wrapper
        streamed = False
        streamed_bytes = 0
        limit = self.max_task_bytes

        async def progress(notification: dict[str, Any]) -> None:
            params = notification.get("params", {})
            if notification.get("method") == "notifications/progress" and params.get("message"):
                await updater.update_status(
                    TaskState.TASK_STATE_WORKING,
                    message=updater.new_agent_message([Part(text=str(params["message"]))]),
                )

        async def chunk(text: str) -> None:
            nonlocal streamed, streamed_bytes
            streamed_bytes += len(text.encode("utf-8", "surrogatepass"))
            if streamed_bytes > limit:  # the tool stops here; its task fails saying why
                raise ToolExecutionError(_too_large(streamed_bytes, limit))
            await updater.add_artifact(
                [Part(text=text)], artifact_id="result", name="result", append=streamed
            )
            streamed = True

        ctx = ToolContext(wrapper.name, progress_token="a2a", sink=progress)
        token = CHUNK_SINK.set(chunk) if wrapper.signature.streams else None
        try:
            result = await wrapper.call(arguments, ctx)
        finally:
            if token is not None:
                CHUNK_SINK.reset(token)
        job_id = (result.get("structuredContent") or {}).get("job_id") if wrapper.spec.background else None
        if isinstance(job_id, str) and self.runner is not None:
            followed = await self._follow(job_id, updater)
            if followed is None:
                return
            result = followed
        if result.get("isError"):
            await updater.failed(updater.new_agent_message([Part(text=_result_text(result))]))
            return
        size = len(_result_text(result).encode("utf-8", "surrogatepass"))
        if not streamed and size > limit:
            await updater.failed(updater.new_agent_message([Part(text=_too_large(size, limit))]))
            return
        if streamed:
            await updater.add_artifact([], artifact_id="result", name="result", append=True, last_chunk=True)
        else:
            await updater.add_artifact([Part(text=_result_text(result))], artifact_id="result", name="result")
        await updater.complete()

    async def _follow(self, job_id: str, updater: TaskUpdater) -> dict[str, Any] | None:
        """A background tool's job to its end, its progress as task status updates; its CallToolResult,
        or None when it was cancelled (the task then is too)."""
        runner = self.runner
        job = runner.store.get(job_id)
        shown: tuple[float, str | None] | None = None
        try:
            while True:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(runner.settled(job), JOB_PROGRESS_INTERVAL)
                seen = (job.progress, job.progress_message)
                # a completed job's last progress is shown too, before its answer
                if (job.status == "completed" or not job.terminal) and seen != shown and job.progress_message:
                    shown = seen
                    await updater.update_status(
                        TaskState.TASK_STATE_WORKING,
                        message=updater.new_agent_message([Part(text=job.progress_message)]),
                        metadata={"progress": job.progress},
                    )
                if job.terminal:
                    break
        except asyncio.CancelledError:  # the A2A task was canceled: so is its job
            with contextlib.suppress(Exception):
                runner.cancel(job_id, "A2A task canceled")
            raise
        if job.status == "cancelled":
            await updater.cancel()
            return None
        if job.status == "failed":
            return {"content": [{"type": "text", "text": job.error or "the job failed"}], "isError": True}
        return job.answer or {"content": [{"type": "text", "text": str(job.result)}], "isError": False}

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
        await updater.cancel()


class DirectSend:
    """A message starting a new task of a plain skill (no stream, no job), answered without the SDK's task
    machinery, which costs ~2.5 ms of CPU per message: the tool runs in the request and the finished task
    is stored for `GetTask`/`tasks/get`. Anything else goes through the SDK's handler."""

    def __init__(self, executor: SkillExecutor, store: TaskStore) -> None:
        self.executor = executor
        self.store = store

    def applies(self, params: dict[str, Any], named: str | None) -> A2aSkill | None:
        """The plain skill a fresh message goes to, or None (the SDK's handler then takes it)."""
        message = _dict(params.get("message"))
        configuration = _dict(params.get("configuration"))
        if (
            not message.get("messageId")  # the SDK's validation answers what is missing
            or not message.get("parts")
            or message.get("taskId")
            or configuration.get("returnImmediately")
            or configuration.get("taskPushNotificationConfig")
        ):
            return None
        return self.plain_skill(named)

    def plain_skill(self, named: Any) -> A2aSkill | None:
        """The skill decided for the request when it is plain: no stream, no job."""
        skill = self.executor.skills.get(named) if isinstance(named, str) else None
        if skill is None or skill.wrapper.spec.background or skill.wrapper.signature.streams:
            return None
        return skill

    async def answer(
        self, skill: A2aSkill, wire: dict[str, Any], context: ServerCallContext
    ) -> dict[str, Any]:
        """A `SendMessage` of the current dialect: the finished task as JSON, built beside the stored proto
        (protobuf's JSON conversion costs more than the rest of the call)."""
        message = _read_message(wire)
        if message is None:
            message = ParseDict(wire, Message())
            task = await self.run(skill, message, context)
            return {"task": MessageToDict(task)}
        task = await self.run(skill, message, context)
        status: dict[str, Any] = {
            "state": TaskState.Name(task.status.state),
            "timestamp": task.status.timestamp.ToJsonString(),
        }
        out: dict[str, Any] = {"id": task.id, "contextId": task.context_id, "status": status}
        if task.status.HasField("message"):
            reply = task.status.message
            status["message"] = {
                "messageId": reply.message_id,
                "contextId": reply.context_id,
                "taskId": reply.task_id,
                "role": "ROLE_AGENT",
                "parts": [{"text": reply.parts[0].text}],
            }
        else:
            out["artifacts"] = [
                {
                    "artifactId": "result",
                    "name": "result",
                    "parts": [{"text": task.artifacts[0].parts[0].text}],
                }
            ]
        history = {k: v for k, v in wire.items() if k not in ("contextId", "taskId")}
        history.update(contextId=task.context_id, taskId=task.id)
        out["history"] = [history]
        return {"task": out}

    async def run(self, skill: A2aSkill, message: Message, context: ServerCallContext) -> Task:
        message.task_id = str(uuid.uuid4())
        message.context_id = message.context_id or str(uuid.uuid4())
        task = Task(id=message.task_id, context_id=message.context_id, history=[message])
        try:
            text, data = _message_input(message)
            result = await skill.wrapper.call(
                arguments_of(skill, text, data), ToolContext(skill.wrapper.name)
            )
        except ValueError as exc:
            result = {"content": [{"type": "text", "text": str(exc)}], "isError": True}
        limit = self.executor.max_task_bytes
        size = len(_result_text(result).encode("utf-8", "surrogatepass"))
        if not result.get("isError") and size > limit:
            result = {"content": [{"type": "text", "text": _too_large(size, limit)}], "isError": True}
        if result.get("isError"):
            task.status.state = TaskState.TASK_STATE_FAILED
            reply = Message(
                message_id=str(uuid.uuid4()), role=Role.ROLE_AGENT, parts=[Part(text=_result_text(result))]
            )
            reply.task_id, reply.context_id = task.id, task.context_id
            task.status.message.CopyFrom(reply)
        else:
            task.status.state = TaskState.TASK_STATE_COMPLETED
            task.artifacts.append(
                Artifact(artifact_id="result", name="result", parts=[Part(text=_result_text(result))])
            )
        task.status.timestamp.GetCurrentTime()
        await self.store.save(task, context)
        return task


_PLAIN_MESSAGE_KEYS = frozenset({"messageId", "role", "parts", "metadata", "contextId"})


def _read_message(wire: dict[str, Any]) -> Message | None:
    """A user message of text parts as a proto, without protobuf's JSON parser; None for anything else."""
    parts = wire.get("parts")
    if (
        not wire.keys() <= _PLAIN_MESSAGE_KEYS
        or wire.get("role") != "ROLE_USER"
        or not isinstance(wire.get("messageId"), str)
        or not isinstance(parts, list)
        or not all(isinstance(p, dict) and p.keys() == {"text"} and isinstance(p["text"], str) for p in parts)
        or not isinstance(wire.get("metadata", {}), dict)
        or not isinstance(wire.get("contextId", ""), str)
    ):
        return None
    message = Message(
        message_id=wire["messageId"],
        role=Role.ROLE_USER,
        parts=[Part(text=p["text"]) for p in parts],
        context_id=wire.get("contextId", ""),
    )
    if wire.get("metadata"):
        message.metadata.update(wire["metadata"])
    return message


class Caller(User):
    """A verified caller as the SDK's user: its `user_name` is the owner the task store keys tasks by."""

    def __init__(self, token: AccessToken) -> None:
        self.token = token
        self.owner = owner_of(token)

    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def user_name(self) -> str:
        return self.owner


class _SkillContextBuilder(DefaultServerCallContextBuilder):
    """The call context of a request `rpc` has read: the skill decided for it and its caller."""

    def build(self, request: Request) -> ServerCallContext:
        context = super().build(request)
        skill, _ = request.scope.get(CALL_SCOPE, (None, None))
        context.state[SKILL_STATE] = skill
        return context

    def build_user(self, request: Request) -> User:
        _, caller = request.scope.get(CALL_SCOPE, (None, None))
        return Caller(caller) if caller is not None else UnauthenticatedUser()


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
        params = _dict(body.get("params"))
        if method in ("tasks/send", "tasks/sendSubscribe"):
            message = params.get("message")
            if not isinstance(message, dict) or not isinstance(message.get("parts"), list):
                return _error(
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
                    media_type="text/event-stream",
                    headers=STREAM_HEADERS,
                )
            task_id = params.get("id")
            if not isinstance(task_id, str) or not task_id:
                return _error(request_id, -32602, f"Invalid params: 'id' is required for {method}")
            inner = self.ids.get((context.user.user_name, task_id), task_id)
            if method in ("tasks/get", "tasks/resubscribe"):
                task = await self.handler.on_get_task(GetTaskRequest(id=inner), context)
                if method == "tasks/resubscribe" and task is not None:  # from the current state, no replay
                    frames = self._resubscribe(request_id, task_id, task, context)
                    return StreamingResponse(frames, media_type="text/event-stream", headers=STREAM_HEADERS)
            else:
                task = await self.handler.on_cancel_task(CancelTaskRequest(id=inner), context)
            if task is None:
                return _error(request_id, -32602, f"Unknown task id: {task_id}")
            return JSONResponse({"jsonrpc": "2.0", "id": request_id, "result": _legacy_task(task, task_id)})
        except ParseError as exc:  # a part protobuf cannot hold (a data part that is not an object, ...)
            return _error(request_id, -32602, f"Invalid params: {' '.join(str(exc).split())[:300]}")
        except A2AError as exc:
            code = -32602 if "not found" in str(exc).lower() else -32603
            text = f"Unknown task id: {params.get('id')}" if code == -32602 else str(exc)
            return _error(request_id, code, text)

    def _wire(self, params: dict[str, Any], skill: Any, at_once: bool = False) -> dict[str, Any]:
        """MCP Mesh's `params` as the current dialect's `SendMessage` params (JSON); `skill`, the one
        decided for the request, is the only skill it names."""
        message = _dict(params.get("message"))
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
        message = _read_message(wire["message"]) if skill is not None else None
        if skill is not None and message is not None:  # protobuf's JSON conversion skipped both ways
            task: Any = await self.direct.run(skill, message, context)
            self._remember(context, outer, task.id)
            return _legacy_plain_task(task, outer, wire["message"]["parts"])
        request: SendMessageRequest = ParseDict(wire, SendMessageRequest())
        if skill is not None:
            task = await self.direct.run(skill, request.message, context)
        else:
            task = await self.handler.on_message_send(request, context)
        self._remember(context, outer, task.id)
        return _legacy_task(task, outer)

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
        status = _legacy_status(MessageToDict(task.status))
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
                    artifact = _legacy_artifact(MessageToDict(event.artifact))
                    result = {"id": outer, "artifact": artifact}
                elif isinstance(event, TaskStatusUpdateEvent):
                    status = _legacy_status(MessageToDict(event.status))
                    final = status["state"] in ("completed", "failed", "canceled", "rejected")
                    result = {"id": outer, "status": status, "final": final}
                if result is not None:
                    yield _frame({"jsonrpc": "2.0", "id": request_id, "result": result})
        except A2AError as exc:
            yield _frame({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32603, "message": str(exc)}})


def _frame(envelope: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(envelope)}\n\n".encode()


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _error(request_id: Any, code: int, message: str, status: int = 200) -> JSONResponse:
    return JSONResponse(
        {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}, status_code=status
    )


def _legacy_parts(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for part in parts:
        if "text" in part:
            out.append({"type": "text", "text": part["text"]})
        elif "data" in part:
            out.append({"type": "data", "data": part["data"]})
    return out


def _legacy_artifact(artifact: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": artifact.get("name", "result"),
        "parts": _legacy_parts(artifact.get("parts", [])),
        "index": 0,
    }


def _legacy_status(status: dict[str, Any]) -> dict[str, Any]:
    state = state_name(status.get("state"))
    out: dict[str, Any] = {
        "state": "working" if state == "submitted" else state,  # MCP Mesh's dialect has no `submitted`
        "timestamp": status.get("timestamp") or datetime.now(UTC).isoformat().replace("+00:00", "Z"),
    }
    message = status.get("message")
    if isinstance(message, dict):
        out["message"] = {"role": "agent", "parts": _legacy_parts(message.get("parts", []))}
    return out


def _legacy_task(task: Any, outer: str) -> dict[str, Any]:
    wire = MessageToDict(task)
    history = [
        {
            "role": "user" if m.get("role") == "ROLE_USER" else "agent",
            "parts": _legacy_parts(m.get("parts", [])),
        }
        for m in wire.get("history", [])
        if m.get("role") == "ROLE_USER"
    ]
    return {
        "id": outer,
        "sessionId": wire.get("contextId", outer),
        "status": _legacy_status(wire.get("status", {})),
        "artifacts": [_legacy_artifact(a) for a in wire.get("artifacts", [])],
        "history": history,
    }


def _legacy_plain_task(task: Task, outer: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    """`_legacy_task` of a task DirectSend ran from a message of text `parts`, without MessageToDict."""
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
        "history": [{"role": "user", "parts": _legacy_parts(parts)}],
    }


def verifier_configured(settings: MeshSettings) -> bool:
    return bool(settings.auth.tokens or settings.auth.jwks_url)


def _guard(settings: MeshSettings) -> A2aGuard | None:
    verifier = verifier_from_settings(settings)
    return None if verifier is None else A2aGuard(verifier, settings.auth.required_scopes)


def _card(settings: MeshSettings, skills: list[A2aSkill], url: str) -> AgentCard:
    agent = settings.agent
    secured = verifier_configured(settings)
    return AgentCard(
        security_schemes={
            "bearer": SecurityScheme(http_auth_security_scheme=HTTPAuthSecurityScheme(scheme="Bearer"))
        }
        if secured
        else None,
        security_requirements=[SecurityRequirement(schemes={"bearer": StringList()})] if secured else None,
        name=agent.name,
        description=agent.description or agent.name,
        version=agent.version,
        supported_interfaces=[AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain", "application/json"],
        skills=[_skill_proto(skill) for skill in skills],
    )


def _legacy_card(settings: MeshSettings, skill: A2aSkill, url: str) -> dict[str, Any]:
    agent = settings.agent
    return {
        "name": agent.name,
        "description": agent.description or agent.name,
        "version": agent.version,
        "capabilities": {"streaming": True, "pushNotifications": False, "stateTransitionHistory": False},
        "defaultInputModes": list(skill.spec.input_modes),
        "defaultOutputModes": list(skill.spec.output_modes),
        "skills": [
            {
                "id": skill.id,
                "name": skill.name,
                "description": skill.description,
                "tags": list(skill.tags),
                "inputModes": list(skill.spec.input_modes),
                "outputModes": list(skill.spec.output_modes),
            }
        ],
        "url": url,
        "authentication": {"schemes": ["bearer"] if verifier_configured(settings) else []},
    }


def advertised_base(settings: MeshSettings, request: Request) -> str:
    """The base URL the cards name: `a2a.public_url`, else http(s)://{agent.host}:{port}, the port the
    request came in on (the socket's, so port 0 works): never the request's Host header."""
    if settings.a2a.public_url:
        return settings.a2a.public_url
    server = request.scope.get("server")
    port = server[1] if server and server[1] else settings.server.port
    host = settings.agent.host or settings.server.host or "127.0.0.1"
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"  # an IPv6 address
    scheme = "https" if settings.tls.cert_file else "http"
    return f"{scheme}://{host}:{port}"


_DISPATCHER_LOG = "a2a.server.routes.jsonrpc_dispatcher"


class _OneLine(logging.Filter):
    """The SDK's JSON-RPC dispatcher logs a traceback at ERROR for each request it cannot read, then a
    "Request Error" line naming the problem: that line alone stays (a client's mistake is no error of
    ours). Any other exception it logs is one line, without the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.exc_info or record.exc_info[1] is None:
            return True
        exc = record.exc_info[1]
        mistake = record.getMessage().startswith(("Failed to validate", "Failed to parse"))
        if mistake and record.name == _DISPATCHER_LOG:
            return False
        detail = " ".join(str(exc).split())[:300]
        record.msg = f"{record.getMessage()}: {type(exc).__name__}: {detail}"
        record.args = None
        record.exc_info = None
        record.exc_text = None
        if mistake:
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


_ONE_LINE = _OneLine()
for _name in (_DISPATCHER_LOG, "a2a.compat.v0_3.jsonrpc_adapter"):
    if _ONE_LINE not in logging.getLogger(_name).filters:
        logging.getLogger(_name).addFilter(_ONE_LINE)


async def _admit(
    request: Request, skills: dict[str, A2aSkill], guard: A2aGuard | None
) -> Response | tuple[dict[str, Any], str | None]:
    """A request read once: its JSON-RPC body and the skill it runs (authorized for its caller, both left
    in the scope for `_SkillContextBuilder`), or the answer refusing it."""
    path_skill = request.path_params.get("skill")
    if path_skill is not None and path_skill not in skills:
        return _error(
            None, -32602, f"no A2A skill '{path_skill}'; this agent serves: {', '.join(skills)}", 404
        )
    if not is_json_body(request.headers.get("content-type")):  # never a form or text/plain
        message = "Invalid Request: send the JSON-RPC request as Content-Type: application/json"
        return _error(None, -32600, message, 415)
    try:
        body = read_json(await request.body())
    except BadRequest as exc:
        return _error(None, exc.code, str(exc), 400)
    if not isinstance(body, dict):
        return _error(None, -32600, "Invalid Request: the body must be one JSON-RPC request object", 400)
    if not isinstance(body.get("params", {}), dict):
        return _error(request_id(body), -32602, "Invalid params: 'params' must be an object")
    try:
        named = decide_skill(path_skill, body, skills)
    except BadRequest as exc:
        return _error(request_id(body), exc.code, str(exc), 400)
    caller: AccessToken | None = None
    if guard is not None:
        checked = await guard.check(request, skills.get(named) if named is not None else None)
        if isinstance(checked, Response):
            return checked
        caller = checked
    request.scope[CALL_SCOPE] = (named, caller)
    return body, named


def skill_routes(
    settings: MeshSettings, tools: MeshToolWrapperRegistry, runner: Any = None
) -> list[BaseRoute]:
    """The A2A routes of the agent's skills."""
    skills = skills_of(tools)
    by_id = {skill.id: skill for skill in skills}
    path = settings.a2a.path
    placeholder = _card(settings, skills, path)
    executor = SkillExecutor(by_id, runner, settings.a2a.max_task_bytes)
    guard = _guard(settings)
    store = BoundedTaskStore(settings.a2a.max_tasks, settings.a2a.max_task_bytes)
    handler = DefaultRequestHandler(executor, store, placeholder)
    builder = _SkillContextBuilder()
    dispatcher = JsonRpcDispatcher(request_handler=handler, context_builder=builder, enable_v0_3_compat=True)
    direct = DirectSend(executor, store)
    legacy = LegacyDialect(handler, by_id, direct)

    async def card(request: Request) -> JSONResponse:
        from a2a.server.request_handlers.response_helpers import agent_card_to_dict

        base = advertised_base(settings, request)
        return JSONResponse(agent_card_to_dict(_card(settings, skills, base + path)))

    async def skill_card(request: Request) -> Response:
        skill = by_id.get(request.path_params["skill"])
        name = request.path_params["card"]
        known = ", ".join(by_id)
        if skill is None:
            return JSONResponse(
                {"error": f"no A2A skill {request.path_params['skill']!r}; this agent serves: {known}"},
                status_code=404,
            )
        url = f"{advertised_base(settings, request)}{path}/{skill.id}"
        if name == "agent.json":
            return JSONResponse(_legacy_card(settings, skill, url))
        if name == "agent-card.json":
            from a2a.server.request_handlers.response_helpers import agent_card_to_dict

            return JSONResponse(agent_card_to_dict(_card(settings, [skill], url)))
        return JSONResponse(
            {"error": f"no card {name!r}; use agent-card.json or agent.json"}, status_code=404
        )

    async def rpc(request: Request) -> Response:
        admitted = await _admit(request, by_id, guard)
        if isinstance(admitted, Response):
            return admitted
        body, named = admitted
        if body.get("method") in LEGACY_METHODS:
            return await legacy(body, builder.build(request))
        if (
            body.get("method") == "SendMessage"
            and request.headers.get("a2a-version") == "1.0"
            and (target := direct.applies(_dict(body.get("params")), named)) is not None
        ):
            wire = _dict(_dict(body["params"]).get("message"))
            try:
                result = await direct.answer(target, wire, builder.build(request))
            except ParseError as exc:  # not a valid message: the SDK's answer names the problem
                logger.debug("SendMessage with an unreadable message, left to the SDK: %r", exc)
            else:
                return JSONResponse({"result": result, "id": body.get("id"), "jsonrpc": "2.0"})
        # the dispatcher reads the body again: the JSON read here, so both see the same request
        request._body = json.dumps(body).encode()
        return await dispatcher.handle_requests(request)

    return [
        Route("/.well-known/agent-card.json", card, methods=["GET"]),
        Route(path, rpc, methods=["POST"]),
        Route(path + "/{skill}", rpc, methods=["POST"]),
        Route(path + "/{skill}/.well-known/{card}", skill_card, methods=["GET"]),
    ]
