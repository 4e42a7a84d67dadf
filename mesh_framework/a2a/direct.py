"""The fast path of a fresh message to a plain skill (no stream, no job): the tool runs in the request
and the finished task is stored, without the SDK's task machinery."""

from __future__ import annotations

import uuid
from typing import Any

from a2a.server.context import ServerCallContext
from a2a.server.tasks import TaskStore
from a2a.types import Artifact, Message, Part, Role, Task, TaskState
from google.protobuf.json_format import MessageToDict, ParseDict  # type: ignore[import-untyped]

from ..tools.context import ToolContext
from .call_context import caller_of
from .executor import SkillExecutor
from .messages import arguments_of, message_input, read_message, result_text, too_large
from .requests import as_dict
from .skills import A2aSkill

__all__ = ["DirectSend"]


class DirectSend:
    """A message starting a new task of a plain skill (no stream, no job), answered without the SDK's task
    machinery, which costs ~2.5 ms of CPU per message: the tool runs in the request and the finished task
    is stored for `GetTask`/`tasks/get`. Anything else goes through the SDK's handler."""

    def __init__(self, executor: SkillExecutor, store: TaskStore) -> None:
        self.executor = executor
        self.store = store

    def applies(self, params: dict[str, Any], named: str | None) -> A2aSkill | None:
        """The plain skill a fresh message goes to, or None (the SDK's handler then takes it)."""
        message = as_dict(params.get("message"))
        configuration = as_dict(params.get("configuration"))
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
        message = read_message(wire)
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
            text, data = message_input(message)
            ctx = ToolContext(skill.wrapper.name, access_token=caller_of(context))
            result = await skill.wrapper.call(arguments_of(skill, text, data), ctx)
        except ValueError as exc:
            result = {"content": [{"type": "text", "text": str(exc)}], "isError": True}
        limit = self.executor.max_task_bytes
        size = len(result_text(result).encode("utf-8", "surrogatepass"))
        if not result.get("isError") and size > limit:
            result = {"content": [{"type": "text", "text": too_large(size, limit)}], "isError": True}
        if result.get("isError"):
            task.status.state = TaskState.TASK_STATE_FAILED
            reply = Message(
                message_id=str(uuid.uuid4()), role=Role.ROLE_AGENT, parts=[Part(text=result_text(result))]
            )
            reply.task_id, reply.context_id = task.id, task.context_id
            task.status.message.CopyFrom(reply)
        else:
            task.status.state = TaskState.TASK_STATE_COMPLETED
            task.artifacts.append(
                Artifact(artifact_id="result", name="result", parts=[Part(text=result_text(result))])
            )
        task.status.timestamp.GetCurrentTime()
        await self.store.save(task, context)
        return task
