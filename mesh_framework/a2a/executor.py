"""The SDK's agent executor for the agent's skills: a message's skill (its tool) run as an A2A task.

The skill is the one decided for the request (`call_context.SKILL_STATE`); its progress notifications
become `working` status updates, a streaming tool's chunks one appended artifact, and a background tool's
job is followed to its end (cancelling the task cancels the job). A result larger than
`a2a.max_task_bytes` fails the task saying so.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from typing import Any

from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types import Part, Task, TaskState, TaskStatus

from ..errors import ToolExecutionError
from ..tools.context import ToolContext
from ..tools.streaming import CHUNK_SINK
from .call_context import SKILL_STATE, caller_of
from .messages import arguments_of, message_input, result_text, too_large
from .skills import A2aSkill

__all__ = ["JOB_PROGRESS_INTERVAL", "SkillExecutor"]

JOB_PROGRESS_INTERVAL = 0.1  # seconds between looks at a running job's progress


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
            text, data = message_input(context.message)
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
                raise ToolExecutionError(too_large(streamed_bytes, limit))
            await updater.add_artifact(
                [Part(text=text)], artifact_id="result", name="result", append=streamed
            )
            streamed = True

        # the caller the guard authorized (call_context.caller_of)
        ctx = ToolContext(
            wrapper.name, progress_token="a2a", sink=progress, access_token=caller_of(context.call_context)
        )
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
            await updater.failed(updater.new_agent_message([Part(text=result_text(result))]))
            return
        size = len(result_text(result).encode("utf-8", "surrogatepass"))
        if not streamed and size > limit:
            await updater.failed(updater.new_agent_message([Part(text=too_large(size, limit))]))
            return
        if streamed:
            await updater.add_artifact([], artifact_id="result", name="result", append=True, last_chunk=True)
        else:
            await updater.add_artifact([Part(text=result_text(result))], artifact_id="result", name="result")
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
