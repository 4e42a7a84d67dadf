"""The A2A task store keeps a bounded number of tasks: the oldest ended ones go, a running one stays."""

from __future__ import annotations

from a2a.server.context import ServerCallContext
from a2a.types import Task, TaskState

from mesh_framework.a2a.server import BoundedTaskStore


def task(task_id: str, state: TaskState) -> Task:
    made = Task(id=task_id, context_id="c")
    made.status.state = state
    return made


async def test_the_oldest_ended_tasks_are_dropped_past_the_bound() -> None:
    store, context = BoundedTaskStore(max_tasks=3), ServerCallContext()
    await store.save(task("running", TaskState.TASK_STATE_WORKING), context)
    for n in range(5):
        await store.save(task(f"done-{n}", TaskState.TASK_STATE_COMPLETED), context)
    kept = [t for t in ["running", *(f"done-{n}" for n in range(5))] if await store.get(t, context)]
    assert kept == ["running", "done-3", "done-4"]
    await store.save(task("running", TaskState.TASK_STATE_COMPLETED), context)  # an update, not a new task
    assert await store.get("done-3", context) is not None
