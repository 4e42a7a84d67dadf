"""The A2A task store keeps a bounded number of tasks: the oldest ended ones go, a running one stays; and an
agent without skills does not load `a2a-sdk`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from mesh_framework import MeshApplication, WiringError, mesh_a2a
from tests.agents import ROOT

if TYPE_CHECKING:  # a2a-sdk (slow to import) is imported by the tests using it, not at collection
    from a2a.types import Task, TaskState


def task(task_id: str, state: TaskState) -> Task:
    from a2a.types import Task

    made = Task(id=task_id, context_id="c")
    made.status.state = state
    return made


async def test_the_oldest_ended_tasks_are_dropped_past_the_bound() -> None:
    from a2a.server.context import ServerCallContext
    from a2a.types import TaskState

    from mesh_framework.a2a.a2a_server import BoundedTaskStore

    store, context = BoundedTaskStore(max_tasks=3), ServerCallContext()
    await store.save(task("running", TaskState.TASK_STATE_WORKING), context)
    for n in range(5):
        await store.save(task(f"done-{n}", TaskState.TASK_STATE_COMPLETED), context)
    kept = [t for t in ["running", *(f"done-{n}" for n in range(5))] if await store.get(t, context)]
    assert kept == ["running", "done-3", "done-4"]
    await store.save(task("running", TaskState.TASK_STATE_COMPLETED), context)  # an update, not a new task
    assert await store.get("done-3", context) is not None


def loaded_after_build(app: str) -> set[str]:
    code = (
        "import json, sys\n"
        "from mesh_framework.app import MeshApplication\n"
        f"MeshApplication.load({app!r}, cli={{'registry.enabled': False}}).build()\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("MESH_", "MCP_MESH_"))}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_only_an_agent_with_skills_loads_the_a2a_sdk() -> None:
    plain = loaded_after_build("tests.apps.stream_app")
    assert "a2a" not in plain and "mesh_framework.a2a.a2a_server" not in plain
    # the no-skill answers come from the auto-configuration, which loads no other A2A module
    assert "mesh_framework.a2a.auto_configuration" in plain
    assert not {
        m for m in plain if m.startswith("mesh_framework.a2a.") and not m.endswith("auto_configuration")
    }
    skilled = loaded_after_build("tests.apps.a2a_app")
    assert {"a2a", "mesh_framework.a2a.a2a_server", "mesh_framework.a2a.beans"} <= skilled


def test_two_tools_with_one_skill_id_stop_the_start_with_both_named() -> None:
    with pytest.raises(WiringError) as caught:
        MeshApplication.load("tests.apps.a2a_bad", environ={}).build()
    [problem] = caught.value.problems
    assert problem.startswith("A2A skill id 'greet' is served by 2 tools (tests.apps.a2a_bad.hello, ")
    assert problem.endswith("give each @mesh_a2a(skill_id=...) its own")


def test_a_bad_skill_id_is_refused_at_decoration() -> None:
    with pytest.raises(ValueError, match="A2A skill id 'no spaces' is invalid"):
        mesh_a2a("no spaces")
