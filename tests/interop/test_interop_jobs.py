"""Jobs with the real MCP Mesh: mcp-mesh 3.8 agents and ours, on the real registry 3.7.1 and on our
embedded registry (a `mesh registry` process), loopback only.

Both directions: our consumer submits to mcp-mesh's `@mesh.tool(task=True)` and mcp-mesh's worker claims
and completes it; mcp-mesh's consumer submits to our `task=True` tool and our agent claims, reports and
completes it. Each side polls the other's jobs with its `__mesh_job_*` tools, and a cancel sent through
mcp-mesh's `__mesh_job_cancel` reaches the job our agent runs.

The agents start once, on MCP Mesh's registry; for the second run of the tests that registry is replaced
by ours on the same port, which the agents then register with again (as after a registry restart that
forgot them).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.agents import AgentProcess, run_agent
from tests.agents import wait_until as wait_for
from tests.interop.mcp_mesh import (
    AGENTS_DIR,
    MeshAgent,
    _http_json,
    call_mesh_tool,
    enter_concurrently,
    missing_tools,
    registry_agents,
    run_mesh_python_agent,
)
from tests.interop.registry_seat import KINDS, RegistrySeat

MESH_AGENT_ENV = {"MCP_MESH_DEBOUNCE_DELAY": "1.0"}


@dataclass
class JobMesh:
    registry_url: str
    ours: AgentProcess
    worker: MeshAgent
    consumer: MeshAgent

    def job(self, job_id: str) -> dict[str, Any]:
        status, _type, text = _http_json("GET", f"{self.registry_url}/jobs/{job_id}")
        assert status == 200, text
        row: dict[str, Any] = json.loads(text)
        return row


class Stage:
    """The registry seat (MCP Mesh's registry or ours at one URL) and the agents that use it."""

    def __init__(self, folder: Path) -> None:
        self.seat = RegistrySeat(folder)
        self._agents = ExitStack()
        self._started: tuple[AgentProcess, MeshAgent, MeshAgent] | None = None

    def on(self, kind: str) -> JobMesh:
        """The mesh with `kind`'s registry at the seat, once every agent is in it."""
        self.seat.serve(kind)
        url = self.seat.url
        if self._started is None:
            env = {"MCP_MESH_REGISTRY_URL": url, "MCP_MESH_HEALTH_INTERVAL": "1"}
            mesh_env = {**MESH_AGENT_ENV, "MCP_MESH_REGISTRY_URL": url}
            ours, worker, consumer = enter_concurrently(
                self._agents,
                run_agent("tests.apps.jobs_app", env=env),
                run_mesh_python_agent(AGENTS_DIR / "job_worker.py", url, mesh_env),
                run_mesh_python_agent(AGENTS_DIR / "job_consumer.py", url, mesh_env),
            )
            self._started = (ours, worker, consumer)
        ours, worker, consumer = self._started
        names = {"jobs-app", "mesh-job-worker", "mesh-job-consumer"}
        # after a swap the agents find a registry that does not know them, and register again
        wait_for(
            lambda: names <= {a["name"] for a in registry_agents(url) if a.get("status") == "healthy"},
            timeout=40,
        )
        return JobMesh(url, ours, worker, consumer)

    def close(self) -> None:
        self._agents.close()  # first: they unregister from the registry still running
        self.seat.close()


@pytest.fixture(scope="module")
def stage(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stage]:
    missing = missing_tools()
    assert not missing, f"run scripts/install-mcp-mesh.sh first (missing: {', '.join(missing)})"
    running = Stage(tmp_path_factory.mktemp("registry"))
    try:
        yield running
    finally:
        running.close()


@pytest.fixture(scope="module", params=KINDS)
def mesh(request: pytest.FixtureRequest, stage: Stage) -> JobMesh:
    return stage.on(request.param)


def result_of(message: dict[str, Any]) -> Any:
    result = message["result"]
    assert result.get("isError") is not True, result
    structured = result.get("structuredContent")
    if structured is not None:
        return structured.get("result", structured) if set(structured) == {"result"} else structured
    return json.loads(result["content"][0]["text"])


def ok(endpoint: str, tool: str, arguments: dict[str, Any]) -> Any:
    """The tool's value once it answers without error (dependencies resolve a heartbeat or two late)."""

    def attempt() -> Any:
        message = call_mesh_tool(endpoint, tool, arguments)
        return None if message["result"].get("isError") else message

    return result_of(wait_for(attempt, 30))  # type: ignore[arg-type]


def test_our_consumer_submits_to_an_mcp_mesh_task_tool(mesh: JobMesh) -> None:
    answer = ok(mesh.ours.base_url, "square_via_job", {"n": 7})
    assert answer["result"] == {"square": 49, "as_job": True} and answer["status"] == "completed"
    row = mesh.job(answer["job_id"])
    assert row["capability"] == "slow_square" and row["submitted_payload"] == {"n": 7}
    assert row["submitted_by"].startswith("jobs-app-") and row["owner_instance_id"] == mesh.worker.agent_id
    assert row["progress_message"] == "squaring 7"
    # we poll their job with our job tool; they poll it with theirs: the same registry row
    ours = result_of(call_mesh_tool(mesh.ours.base_url, "__mesh_job_status", {"job_id": answer["job_id"]}))
    theirs = result_of(
        call_mesh_tool(mesh.worker.endpoint, "__mesh_job_result", {"job_id": answer["job_id"]})
    )
    assert ours["status"] == "completed" and ours["result"] == {"square": 49, "as_job": True}
    assert theirs == {"status": "completed", "result": {"square": 49, "as_job": True}, "error": None}


def test_an_mcp_mesh_consumer_submits_to_our_task_tool(mesh: JobMesh) -> None:
    answer = ok(mesh.consumer.endpoint, "mesh_plan", {"city": "Oslo"})
    assert answer["result"] == {"city": "Oslo", "as_job": True}
    jobs = json.loads(_http_json("GET", f"{mesh.registry_url}/jobs?capability=plan")[2])["jobs"]
    row = next(j for j in jobs if j["submitted_payload"] == {"city": "Oslo"})
    assert row["status"] == "completed" and row["owner_instance_id"].startswith("jobs-app-")
    assert row["progress_message"] == "planning Oslo" and row["submitted_by"] == mesh.consumer.agent_id
    # mcp-mesh's job tool reads our job from the registry
    theirs = result_of(call_mesh_tool(mesh.consumer.endpoint, "__mesh_job_status", {"job_id": row["id"]}))
    assert theirs["status"] == "completed" and theirs["result"] == {"city": "Oslo", "as_job": True}


def test_mcp_mesh_cancels_a_job_our_agent_runs(mesh: JobMesh) -> None:
    status, _type, text = _http_json(
        "POST",
        f"{mesh.registry_url}/jobs",
        {"capability": "hold", "submitted_payload": {"name": "never"}, "submitted_by": "test"},
    )
    assert status == 201, text
    job_id = json.loads(text)["id"]
    wait_for(lambda: mesh.job(job_id)["progress_message"] == "waiting for never", 20)
    answer = result_of(
        call_mesh_tool(mesh.worker.endpoint, "__mesh_job_cancel", {"job_id": job_id, "reason": "stop"})
    )
    assert answer == {"ok": True, "job_id": job_id}
    wait_for(lambda: mesh.job(job_id)["status"] != "working", 20)
    row = mesh.job(job_id)
    assert row["status"] == "cancelled" and row["error"] == "cancelled: stop"
    # MCP Mesh's registry forwards the cancel to our agent after answering it: our agent's answer reads the
    # registry's row of a job it runs, so it agrees whether or not the forward has arrived yet
    ours = result_of(call_mesh_tool(mesh.ours.base_url, "__mesh_job_status", {"job_id": job_id}))
    assert ours["status"] == "cancelled"
