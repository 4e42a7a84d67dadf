"""Jobs through a registry: our embedded registry's job API against the real MCP Mesh registry's recorded
answers, and our agents submitting, claiming, running and cancelling jobs through our registry process."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from mesh_framework.registry import RegistryStore, build_registry_app
from tests.agents import AgentProcess, run_agent, run_registry, wait_until
from tests.interop.jobs_capture import CAPTURE, run_script
from tests.interop.mcp_mesh import _http_json, call_mesh_tool


def shape(value: Any) -> Any:
    """An answer with values reduced to their JSON types (ids and times differ between runs)."""
    if isinstance(value, dict):
        return {k: shape(v) for k, v in value.items() if k != "timestamp"}
    if isinstance(value, list):
        return [shape(v) for v in value]
    return type(value).__name__


def test_the_embedded_registry_answers_the_job_api_as_mcp_mesh_3_7_1_does() -> None:
    recorded = json.loads(CAPTURE.read_text())
    with TestClient(build_registry_app(RegistryStore(), sweep=False), base_url="http://127.0.0.1") as client:

        def send(method: str, path: str, body: Any) -> tuple[int, str]:
            response = client.request(method, path, json=body)
            return response.status_code, response.text

        ours = run_script(send)
    assert [e["name"] for e in ours] == [e["name"] for e in recorded]
    for mine, theirs in zip(ours, recorded, strict=True):
        assert (mine["name"], mine["status"]) == (theirs["name"], theirs["status"])
        assert shape(mine["answer"]) == shape(theirs["answer"]), mine["name"]
    by_name = {e["name"]: e["answer"] for e in ours}
    assert by_name["get_cancelled"]["error"] == "cancelled: stop"
    assert by_name["foreign_update"]["rejected"][0]["reason"] == "not_owner"
    assert by_name["get_completed"]["result"] == {"v": 1}


def value(message: dict[str, Any]) -> Any:
    result = message["result"]
    assert result.get("isError") is not True, result
    return result.get("structuredContent")


@pytest.fixture(scope="module")
def mesh() -> Iterator[tuple[AgentProcess, AgentProcess]]:
    with run_registry() as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MESH_REGISTRY__HEARTBEAT_INTERVAL": "0.5"}
        with run_agent("tests.apps.jobs_app", env=env) as agent:
            yield registry, agent


def test_a_consumer_submits_through_the_registry_and_the_provider_claims_and_reports(
    mesh: tuple[AgentProcess, AgentProcess],
) -> None:
    registry, agent = mesh
    # `plan_via_job` waits for its dependency `plan` (this same agent) to resolve, then submits to it.
    message = wait_until(lambda: _ok(call_mesh_tool(agent.base_url, "plan_via_job", {"city": "Oslo"})), 20)
    answer = value(message)  # type: ignore[arg-type]
    assert answer["result"] == {"city": "Oslo", "as_job": True}
    assert answer["progress_message"] == "planning Oslo"
    status, _type, text = _http_json("GET", f"{registry.base_url}/jobs/{answer['job_id']}")
    row = json.loads(text)
    assert status == 200 and row["status"] == "completed" and row["capability"] == "plan"
    assert row["owner_instance_id"].startswith("jobs-app-") and row["submitted_payload"] == {"city": "Oslo"}
    # the job tools of the agent read a registry job it does not hold locally from the registry
    remote = value(call_mesh_tool(agent.base_url, "__mesh_job_result", {"job_id": answer["job_id"]}))
    assert remote["status"] == "completed"


def test_cancelling_a_claimed_job_at_the_registry_stops_it_on_the_agent(
    mesh: tuple[AgentProcess, AgentProcess],
) -> None:
    registry, agent = mesh
    status, _type, text = _http_json(
        "POST",
        f"{registry.base_url}/jobs",
        {"capability": "hold", "submitted_payload": {"name": "forever"}, "submitted_by": "t"},
    )
    assert status == 201
    job_id = json.loads(text)["id"]

    def claimed() -> Any:
        row = json.loads(_http_json("GET", f"{registry.base_url}/jobs/{job_id}")[2])
        return row["owner_instance_id"] and row["progress_message"] == "waiting for forever" and row

    row = wait_until(claimed, 20)
    status, _type, text = _http_json(
        "POST", f"{registry.base_url}/jobs/{job_id}/cancel", {"reason": "enough"}
    )
    assert status == 200
    assert json.loads(text) == {"status": "cancelled", "forwarded_to_instance_id": row["owner_instance_id"]}  # type: ignore[index]
    local = value(call_mesh_tool(agent.base_url, "__mesh_job_status", {"job_id": job_id}))
    assert local["status"] == "cancelled" and local["error"] == "cancelled: enough"
    again = call_mesh_tool(agent.base_url, "__mesh_job_cancel", {"job_id": job_id})["result"]
    assert again["isError"] is True and "already finished (cancelled)" in again["content"][0]["text"]


def test_a_cancel_the_registry_could_not_forward_ends_the_job_when_its_agent_is_asked() -> None:
    """The registry answers a cancel before its owner hears of it (MCP Mesh's registry forwards it in the
    background) or without it (a forward that fails): the owner's job tools read the registry's row, and a
    cancel found there ends the job on the agent too."""
    with run_registry() as registry:
        env = {
            "MCP_MESH_REGISTRY_URL": registry.base_url,
            "MESH_REGISTRY__HEARTBEAT_INTERVAL": "0.5",
            "MCP_MESH_HTTP_HOST": "127.0.0.2",  # advertised to the registry; the agent listens on 127.0.0.1
        }
        with run_agent("tests.apps.jobs_app", env=env) as agent:
            job_id = submit(registry, "hold", {"name": "unheard"})

            def held() -> bool:
                row = json.loads(_http_json("GET", f"{registry.base_url}/jobs/{job_id}")[2])
                return bool(row["progress_message"] == "waiting for unheard")

            wait_until(held, 20)
            status, _type, text = _http_json(
                "POST", f"{registry.base_url}/jobs/{job_id}/cancel", {"reason": "unheard"}
            )
            assert status == 200 and json.loads(text)["forwarded_to_instance_id"] is None  # it failed
            local = value(call_mesh_tool(agent.base_url, "__mesh_job_status", {"job_id": job_id}))
            assert local["status"] == "cancelled" and local["error"] == "cancelled: unheard"
            # the job ended on the agent, not only in that answer: none of its jobs runs any more
            server = value(call_mesh_tool(agent.base_url, "get_server_status", {}))
            assert server["jobId"] == job_id and server["status"] == "cancelled"


def _ok(message: dict[str, Any]) -> dict[str, Any] | None:
    return None if message["result"].get("isError") else message


def call_with_headers(
    agent: AgentProcess, tool: str, arguments: dict[str, Any], headers: dict[str, str]
) -> Any:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    status, _type, text = _http_json(
        "POST", agent.mcp_url, body, headers={"Accept": "application/json, text/event-stream", **headers}
    )
    assert status == 200, text
    return value(json.loads(text))


def submit(registry: AgentProcess, capability: str, payload: dict[str, Any]) -> str:
    body = {"capability": capability, "submitted_payload": payload, "submitted_by": "test"}
    status, _type, text = _http_json("POST", f"{registry.base_url}/jobs", body)
    assert status == 201, text
    return str(json.loads(text)["id"])


def test_a_call_carrying_x_mesh_job_id_runs_bound_to_that_registry_job(
    mesh: tuple[AgentProcess, AgentProcess],
) -> None:
    registry, agent = mesh
    job_id = submit(registry, "pushed-elsewhere", {"city": "Rome"})  # a capability nobody claims
    answer = call_with_headers(agent, "plan", {"city": "Rome"}, {"X-Mesh-Job-Id": job_id})
    assert answer == {"city": "Rome", "as_job": True}  # answered inline too

    def completed() -> dict[str, Any] | None:
        row: dict[str, Any] = json.loads(_http_json("GET", f"{registry.base_url}/jobs/{job_id}")[2])
        return row if row["status"] == "completed" else None

    row: Any = wait_until(completed, 10)
    assert row["result"] == {"city": "Rome", "as_job": True}
    assert row["owner_instance_id"].startswith("jobs-app-")
    # a nested call (X-Mesh-Calling-Job-Id) is a plain call, not the job
    nested = call_with_headers(
        agent, "plan", {"city": "Rome"}, {"X-Mesh-Job-Id": job_id, "X-Mesh-Calling-Job-Id": job_id}
    )
    assert nested == {"city": "Rome", "as_job": False}


def test_a_job_the_registry_cancelled_before_it_reached_the_agent_ends_at_its_first_report(
    mesh: tuple[AgentProcess, AgentProcess],
) -> None:
    registry, agent = mesh
    job_id = submit(registry, "hold-pushed", {"name": "too late"})  # a capability nobody claims
    status, _type, text = _http_json("POST", f"{registry.base_url}/jobs/{job_id}/cancel", {"reason": "early"})
    assert status == 200 and json.loads(text)["forwarded_to_instance_id"] is None  # no owner to tell yet
    # pushed afterwards: the body starts, its first report is refused (the job ended), and the agent reads why
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "hold", "arguments": {"name": "too late"}},
    }
    headers = {"Accept": "application/json, text/event-stream", "X-Mesh-Job-Id": job_id}
    status, _type, text = _http_json("POST", agent.mcp_url, body, headers=headers, timeout=30)
    assert status == 200, text
    result = json.loads(text)["result"]
    assert result["isError"] is True and "cancelled: early" in result["content"][0]["text"]
    local = value(call_mesh_tool(agent.base_url, "__mesh_job_status", {"job_id": job_id}))
    assert local["status"] == "cancelled" and local["error"] == "cancelled: early"


async def test_a_job_handle_reads_events_cancels_and_reports_the_outcome(
    mesh: tuple[AgentProcess, AgentProcess],
) -> None:
    import httpx2

    from mesh_framework.errors import ToolExecutionError
    from mesh_framework.jobs.client import RegistryJobClient
    from mesh_framework.jobs.handle import JobHandle

    registry, _agent = mesh
    async with httpx2.AsyncClient() as http:
        client = RegistryJobClient(http, registry.base_url, "handle-test")
        answer = await client.submit("hold", {"name": "handle"})
        job = JobHandle(client, answer["id"], "hold")
        await job.send_event("note", {"n": 1})
        events = await job.events()
        assert [(e["seq"], e["type"], e["payload"]) for e in events] == [(1, "note", {"n": 1})]
        with pytest.raises(TimeoutError, match="still working"):
            await job.result(timeout=0.2)
        assert await job.cancel("done with it") is True
        assert await job.cancel() is False  # already cancelled
        with pytest.raises(ToolExecutionError, match="cancelled: done with it"):
            await job.result()
        assert (await job.status())["status"] == "cancelled"
        missing = JobHandle(client, "no-such-job", "hold")
        with pytest.raises(ToolExecutionError, match="job not found: no-such-job"):
            await missing.status()


def test_a_pushed_job_past_its_x_mesh_timeout_fails_in_the_registry(
    mesh: tuple[AgentProcess, AgentProcess],
) -> None:
    registry, agent = mesh
    job_id = submit(registry, "pushed-elsewhere", {"name": "stuck"})
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "hold", "arguments": {"name": "stuck"}},
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "X-Mesh-Job-Id": job_id,
        "X-Mesh-Timeout": "0.3",
    }
    status, _type, text = _http_json("POST", agent.mcp_url, body, headers=headers)
    assert status == 200
    result = json.loads(text)["result"]
    assert result["isError"] is True and result["content"][0]["text"] == "Tool 'hold' timed out after 0.3s"

    def failed() -> dict[str, Any] | None:
        row: dict[str, Any] = json.loads(_http_json("GET", f"{registry.base_url}/jobs/{job_id}")[2])
        return row if row["status"] == "failed" else None

    assert wait_until(failed, 10)["error"] == "Tool 'hold' timed out after 0.3s"  # type: ignore[index]


def test_the_heartbeat_check_hints_at_pending_jobs_as_mcp_mesh_does() -> None:
    """HEAD /heartbeat/{id} carries X-Mesh-Pending-Jobs: unowned working jobs of the capabilities agents
    of the same name serve (as the real registry 3.7.1 answered: see docs/decisions.md); absent when 0."""
    from tests.registry.test_registry import agent, tool

    with TestClient(build_registry_app(RegistryStore(), sweep=False), base_url="http://127.0.0.1") as client:
        for payload in (
            agent("slow-0001", 9011, tool("slow")),
            agent("slow-0002", 9012, tool("other")),
            agent("lonely-0003", 9013, tool("alone")),
        ):
            assert client.post("/heartbeat", json=payload).status_code == 200
        assert "x-mesh-pending-jobs" not in client.head("/heartbeat/slow-0001").headers
        for _ in range(2):
            client.post("/jobs", json={"capability": "slow", "submitted_payload": {}, "submitted_by": "t"})
        assert client.head("/heartbeat/slow-0001").headers["x-mesh-pending-jobs"] == "2"
        assert client.head("/heartbeat/slow-0002").headers["x-mesh-pending-jobs"] == "2"  # same name
        assert "x-mesh-pending-jobs" not in client.head("/heartbeat/lonely-0003").headers
        client.post("/jobs/claim", json={"capability": "slow", "instance_id": "slow-0001"})
        assert client.head("/heartbeat/slow-0001").headers["x-mesh-pending-jobs"] == "1"


def test_with_a_database_the_embedded_registrys_jobs_survive_a_restart(tmp_path: Any) -> None:
    database = tmp_path / "registry.db"

    def registry() -> TestClient:
        return TestClient(
            build_registry_app(RegistryStore(database), sweep=False), base_url="http://127.0.0.1"
        )

    with registry() as client:
        running = client.post("/jobs", json={"capability": "plan", "submitted_by": "t"}).json()["id"]
        waiting = client.post("/jobs", json={"capability": "plan", "submitted_by": "t"}).json()["id"]
        done = client.post("/jobs", json={"capability": "plan", "submitted_by": "t"}).json()["id"]
        claimed = client.post("/jobs/claim", json={"capability": "plan", "instance_id": "w1"}).json()
        assert claimed["claimed"][0]["id"] == running
        delta = {"id": running, "claim_epoch": 1, "progress": 0.5, "progress_message": "half"}
        assert (
            client.post("/jobs/batch", json={"instance_id": "w1", "deltas": [delta]}).json()["accepted"] == 1
        )
        client.post(f"/jobs/{running}/events", json={"type": "note", "payload": {"n": 1}})
        client.post(f"/jobs/{done}/cancel", json={"reason": "not needed"})
        before = {job_id: client.get(f"/jobs/{job_id}").json() for job_id in (running, waiting, done)}
        events_before = client.get(f"/jobs/{running}/events").json()["events"]
    with registry() as client:  # a new store on the same file
        after = {job_id: client.get(f"/jobs/{job_id}").json() for job_id in (running, waiting, done)}
        assert after == before
        assert after[running]["owner_instance_id"] == "w1" and after[running]["progress_message"] == "half"
        assert after[done]["status"] == "cancelled" and after[done]["error"] == "cancelled: not needed"
        assert client.get(f"/jobs/{running}/events").json()["events"] == events_before
        assert [j["id"] for j in client.get("/jobs").json()["jobs"]] == [done, waiting, running]
        # the owner reports on; the job nobody claimed is claimed now
        final = {"id": running, "claim_epoch": 1, "status": "completed", "result": {"v": 2}}
        assert (
            client.post("/jobs/batch", json={"instance_id": "w1", "deltas": [final]}).json()["accepted"] == 1
        )
        claimed = client.post("/jobs/claim", json={"capability": "plan", "instance_id": "w2"}).json()
        assert claimed["claimed"][0]["id"] == waiting
    with registry() as client:
        assert client.get(f"/jobs/{running}").json()["result"] == {"v": 2}
        assert client.get(f"/jobs/{waiting}").json()["owner_instance_id"] == "w2"


def test_jobs_dropped_by_the_bound_are_dropped_from_the_database_too(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mesh_framework.registry import jobs

    monkeypatch.setattr(jobs, "MAX_JOBS", 2)
    database = tmp_path / "registry.db"
    with TestClient(
        build_registry_app(RegistryStore(database), sweep=False), base_url="http://127.0.0.1"
    ) as client:
        first = client.post("/jobs", json={"capability": "c", "submitted_by": "t"}).json()["id"]
        client.post(f"/jobs/{first}/cancel", json={})
        kept = [
            client.post("/jobs", json={"capability": "c", "submitted_by": "t"}).json()["id"] for _ in "ab"
        ]
        assert client.get(f"/jobs/{first}").status_code == 404
    with TestClient(
        build_registry_app(RegistryStore(database), sweep=False), base_url="http://127.0.0.1"
    ) as client:
        assert client.get(f"/jobs/{first}").status_code == 404
        assert [j["id"] for j in client.get("/jobs").json()["jobs"]] == kept[::-1]
