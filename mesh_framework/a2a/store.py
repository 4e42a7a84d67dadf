"""The A2A task store: the SDK's in-memory store (tasks kept per owner, so one caller never reads
another's), bounded in the number of tasks and in the bytes each task holds."""

from __future__ import annotations

from collections import OrderedDict

from a2a.server.context import ServerCallContext
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import Task, TaskState

__all__ = ["ENDED_STATES", "TASKS_KEPT", "TASK_BYTES", "BoundedTaskStore", "trim_history"]

TASKS_KEPT = 10_000  # a2a.max_tasks' default
TASK_BYTES = 1024 * 1024  # a2a.max_task_bytes' default
ENDED_STATES = frozenset(
    {
        TaskState.TASK_STATE_COMPLETED,
        TaskState.TASK_STATE_FAILED,
        TaskState.TASK_STATE_CANCELED,
        TaskState.TASK_STATE_REJECTED,
    }
)


def trim_history(task: Task, max_bytes: int) -> int:
    """Drops `task`'s oldest history messages until it holds at most `max_bytes` (or has no history left);
    how many went. Artifacts are never cut: a result is whole or the task fails (the executor's part)."""
    excess = task.ByteSize() - max_bytes
    if excess <= 0 or not task.history:
        return 0
    drop = 0
    for message in task.history:
        if excess <= 0:
            break
        excess -= message.ByteSize() + 4  # its field tag and length prefix, at most
        drop += 1
    del task.history[:drop]
    return drop


class BoundedTaskStore(InMemoryTaskStore):
    """The SDK's in-memory task store, which keeps every task forever, holding at most `max_tasks`: past
    that, the oldest ended tasks are dropped (a running one stays); and each task at most `max_task_bytes`
    (its oldest history goes first)."""

    def __init__(self, max_tasks: int = TASKS_KEPT, max_task_bytes: int = TASK_BYTES) -> None:
        super().__init__()
        self.max_tasks = max_tasks
        self.max_task_bytes = max_task_bytes
        self._order: OrderedDict[tuple[str, str], ServerCallContext] = OrderedDict()

    async def save(self, task: Task, context: ServerCallContext) -> None:
        # trimmed in place: the object saved is the running task's own, so it stays bounded while it runs
        trim_history(task, self.max_task_bytes)
        await super().save(task, context)
        key = (context.user.user_name, task.id)
        if key not in self._order:
            self._order[key] = context
        for _ in range(len(self._order) - self.max_tasks):
            key, owner = self._order.popitem(last=False)
            kept = await self.get(key[1], owner)
            if kept is not None and kept.status.state not in ENDED_STATES:
                self._order[key] = owner  # still running: looked at again later
                break
            await self.delete(key[1], owner)
