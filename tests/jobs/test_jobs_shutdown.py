"""An agent that stops (SIGTERM, SIGINT) ends every job it still runs with a state someone can read: running
jobs get `server.shutdown_grace`, then end `failed` ("agent stopped"), one log line each, registry jobs in
the registry too; `mesh call --wait` shows that end, read from the agent while it drains or from the
registry once it is gone. Real registry and agent processes (`mesh call` runs in this process:
tests/cli_in_process.py); every wait is on a process, a log line or a registry row."""

from __future__ import annotations

import json
import re
import signal
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from tests.agents import AgentProcess, forget_agents, metric, run_agent, run_registry, stop, wait_until
from tests.cli_in_process import CliRun, start_cli
from tests.interop.mcp_mesh import _http_json, call_mesh_tool

pytestmark = pytest.mark.timeout(120)


def job_row(registry: AgentProcess, job_id: str) -> dict[str, Any]:
    status, _type, text = _http_json("GET", f"{registry.base_url}/jobs/{job_id}")
    assert status == 200, text
    row: dict[str, Any] = json.loads(text)
    return row


def submit(registry: AgentProcess, capability: str, payload: dict[str, Any]) -> str:
    body = {"capability": capability, "submitted_payload": payload, "submitted_by": "test"}
    status, _type, text = _http_json("POST", f"{registry.base_url}/jobs", body)
    assert status == 201, text
    return str(json.loads(text)["id"])


def held(registry: AgentProcess, job_id: str) -> Any:
    """The job's row once its agent claimed it and its body runs (`hold` reports 'waiting for ...')."""
    row = job_row(registry, job_id)
    return row if row["owner_instance_id"] and row["progress_message"] else None


@pytest.fixture(scope="module")
def shared_registry() -> Iterator[AgentProcess]:
    with run_registry() as running:
        yield running


@pytest.fixture
def registry(shared_registry: AgentProcess) -> AgentProcess:
    """The module's registry, as a fresh one would be to the test: no agent offered, no job open. An agent
    an earlier test killed is offered until it misses its heartbeats (a `mesh call` could be sent to it),
    and a job of a test that failed may still be open: they go as a graceful stop and a cancel would."""
    forget_agents(shared_registry)
    url = shared_registry.base_url
    status, _type, text = _http_json("GET", f"{url}/jobs?status=working,input_required&limit=200")
    assert status == 200, text
    for job in json.loads(text)["jobs"]:
        _http_json("POST", f"{url}/jobs/{job['id']}/cancel", {"reason": "left by an earlier test"})
    return shared_registry


def agent_settings(registry: AgentProcess, grace: str = "0.5") -> dict[str, str]:
    return {
        "MCP_MESH_REGISTRY_URL": registry.base_url,
        "MESH_REGISTRY__HEARTBEAT_INTERVAL": "0.5",
        "MESH_SERVER__SHUTDOWN_GRACE": grace,
    }


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_jobs_still_running_when_the_agent_stops_end_failed_with_the_reason(
    registry: AgentProcess, signum: int
) -> None:
    with run_agent("tests.apps.jobs_app", env=agent_settings(registry)) as agent:
        claimed = submit(registry, "hold", {"name": "forever"})
        wait_until(lambda: held(registry, claimed), 20)
        handle = call_mesh_tool(agent.base_url, "hold", {"name": "forever"})["result"]["structuredContent"]
        local = handle["job_id"]  # a background call's job: in the agent's memory only
        agent.process.send_signal(signum)
        assert agent.process.wait(timeout=30) == 0
    row = job_row(registry, claimed)
    assert row["status"] == "failed" and row["error"] == "agent stopped", row
    log = agent.text()
    assert "0 call(s) in flight, 2 job(s) running, up to 0.5s" in log
    for job_id in (claimed, local):
        lines = [line for line in log.splitlines() if job_id in line]
        assert len(lines) == 1, log
        assert f"job {job_id} of tool 'hold' failed: agent stopped (running for" in lines[0]


def test_a_job_that_ends_within_the_grace_completes(registry: AgentProcess) -> None:
    with run_agent("tests.apps.jobs_app", env=agent_settings(registry, grace="30")) as agent:
        job_id = submit(registry, "spin", {"limit": 1.0})  # a sync body that returns "limit" after 1 s
        wait_until(lambda: job_row(registry, job_id)["owner_instance_id"], 20)
        agent.process.send_signal(signal.SIGTERM)
        assert agent.process.wait(timeout=30) == 0
    row = job_row(registry, job_id)
    assert row["status"] == "completed" and row["result"] == {"result": "limit"}, row
    assert "failed: agent stopped" not in agent.text()


def test_a_final_report_the_registry_cannot_take_is_logged_on_one_line() -> None:
    with run_registry() as registry, run_agent("tests.apps.jobs_app", env=agent_settings(registry)) as agent:
        job_id = submit(registry, "hold", {"name": "forever"})
        wait_until(lambda: held(registry, job_id), 20)
        stop(registry.process, sig=signal.SIGKILL)  # the registry is gone: the job's end cannot reach it
        agent.process.send_signal(signal.SIGTERM)
        assert agent.process.wait(timeout=30) == 0
    lines = [line for line in agent.text().splitlines() if "could not deliver the final state" in line]
    assert len(lines) == 1, agent.text()
    assert f"{job_id} failed (agent stopped)" in lines[0] and "registry" in lines[0]


def wait_command(monkeypatch: pytest.MonkeyPatch, registry: AgentProcess, *arguments: str) -> CliRun:
    """`mesh call ARGUMENTS --wait` with the registry's URL, started."""
    env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
    return start_cli(["call", *arguments, "--wait"], monkeypatch, env)


def resolved(agent: AgentProcess) -> None:
    """`hold_via_registry` submits `hold` through the registry and answers that job's handle; it can be
    called once its dependency on `hold` (this agent) resolved, which the agent logs."""
    wait_until(lambda: "hold_via_registry:dep_0: hold ->" in agent.text(), 20)


def polled(agent: AgentProcess) -> None:
    """The command has the job's handle and follows the job: the agent served its first status poll.
    Before that, stopping the agent could cut the command's first call, not the job it follows."""
    wait_until(lambda: metric(agent.base_url, "mesh_tool_calls_total", tool="__mesh_job_status"), 30)


def held_hold_job(registry: AgentProcess) -> str | None:
    status, _type, text = _http_json("GET", f"{registry.base_url}/jobs?capability=hold&status=working")
    rows = json.loads(text)["jobs"] if status == 200 else []
    return next((r["id"] for r in rows if r["owner_instance_id"] and r["progress_message"]), None)


def test_mesh_call_wait_shows_how_a_registry_job_ended_when_its_agent_stops(
    registry: AgentProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    with run_agent("tests.apps.jobs_app", env=agent_settings(registry, grace="0.3")) as agent:
        resolved(agent)
        waiting = wait_command(monkeypatch, registry, "hold_via_registry", "name=forever")
        try:
            job_id = wait_until(lambda: held_hold_job(registry), 30)
            polled(agent)
            agent.process.send_signal(signal.SIGTERM)
            done = waiting.finish(timeout=30)
        finally:
            waiting.close()
    out, err = done.stdout, done.stderr
    # read from the agent while it drained, or from the registry once it was gone: the same end
    assert (done.returncode, out) == (1, ""), err
    assert re.fullmatch(
        rf"mesh call: job {job_id} of 'hold_via_registry' failed: agent stopped"
        r"( \(as the registry holds it: the agent stopped answering\))?\n",
        err,
    ), err


def test_mesh_call_wait_follows_a_registry_job_in_the_registry_once_its_agent_is_gone(
    registry: AgentProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    with run_agent("tests.apps.jobs_app", env=agent_settings(registry)) as agent:
        resolved(agent)
        waiting = wait_command(monkeypatch, registry, "hold_via_registry", "name=forever")
        try:
            job_id = wait_until(lambda: held_hold_job(registry), 30)
            polled(agent)
            stop(agent.process, sig=signal.SIGKILL)  # gone without a word: the registry still says working
            status, _type, text = _http_json(
                "POST", f"{registry.base_url}/jobs/{job_id}/cancel", {"reason": "its agent died"}
            )
            assert status == 200, text
            done = waiting.finish(timeout=30)
        finally:
            waiting.close()
    out, err = done.stdout, done.stderr
    assert (done.returncode, out) == (1, ""), err
    assert err == (
        f"mesh call: job {job_id} of 'hold_via_registry' cancelled: cancelled: its agent died "
        "(as the registry holds it: the agent stopped answering)\n"
    )


def test_mesh_call_wait_says_a_local_job_is_lost_with_its_agent(
    registry: AgentProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    with run_agent("tests.apps.jobs_app", env=agent_settings(registry)) as agent:

        def polls() -> float:  # the job's status polls the agent has served
            return metric(agent.base_url, "mesh_tool_calls_total", tool="__mesh_job_status") or 0.0

        resolved(agent)  # the registry offers its `hold` (a command started sooner would find none)
        waiting = wait_command(monkeypatch, registry, "hold", "name=forever")
        try:

            def running() -> bool:
                summary = call_mesh_tool(agent.base_url, "get_server_status")["result"]["structuredContent"]
                return bool(summary["status"] == "running")

            wait_until(running, 30)
            # the command has its answer and follows the job (else the kill cuts its first call short)
            wait_until(lambda: polls() > 0, 30)
            stop(agent.process, sig=signal.SIGKILL)
            done = waiting.finish(timeout=30)
        finally:
            waiting.close()
    out, err = done.stdout, done.stderr
    assert (done.returncode, out) == (3, ""), err
    assert re.fullmatch(
        # refused, or killed while a poll was in flight: the agent is gone either way
        r"mesh call: \S+ (is unreachable: .+|went away during the call of '__mesh_job_status' \(.+\)); "
        r"job \S+ of 'hold' was working 50% \(waiting for forever\) when "
        r"last seen; the registry does not know it \(a background call's job lives in the memory of the "
        r"agent that runs it\), so its outcome cannot be read\n",
        err,
    ), err


def modern_call(agent: AgentProcess, tool: str, arguments: dict[str, Any]) -> tuple[int, Any]:
    """A 2026-07-28 `tools/call` (routing headers and envelope); (HTTP status, decoded body)."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": meta},
    }
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": tool,
    }
    status, _type, text = _http_json("POST", agent.mcp_url, body, headers=headers)
    return status, json.loads(text)


def test_a_draining_agent_answers_job_polls_and_refuses_everything_else(registry: AgentProcess) -> None:
    with run_agent("tests.apps.jobs_app", env=agent_settings(registry, grace="60")) as agent:
        status, answer = modern_call(agent, "hold", {"name": "forever"})
        job_id = answer["result"]["structuredContent"]["job_id"]
        agent.process.send_signal(signal.SIGTERM)
        wait_until(lambda: "1 job(s) running, up to 60.0s" in agent.text(), 20)
        status, answer = modern_call(agent, "__mesh_job_status", {"job_id": job_id})
        assert status == 200 and answer["result"]["structuredContent"]["status"] == "working"
        status, answer = modern_call(agent, "quick", {"n": 1})  # new work: refused while it drains
        assert status == 503 and "shutting down" in answer["error"]["message"]
        with pytest.raises(RuntimeError, match="HTTP 503"):  # a legacy poll carries no headers to read
            call_mesh_tool(agent.base_url, "__mesh_job_status", {"job_id": job_id})
        # the job's end, read while the agent drains: here a cancel, which ends the stop's wait at once
        status, answer = modern_call(agent, "__mesh_job_cancel", {"job_id": job_id, "reason": "done here"})
        assert status == 200 and answer["result"]["structuredContent"] == {"ok": True, "job_id": job_id}
        status, answer = modern_call(agent, "__mesh_job_status", {"job_id": job_id})
        assert answer["result"]["structuredContent"]["error"] == "cancelled: done here"
        assert agent.process.wait(timeout=30) == 0  # long before the 60 s grace
    assert "failed: agent stopped" not in agent.text()


def test_an_agent_stopped_before_it_registered_stops_without_waiting_out_its_grace() -> None:
    """Claim loops start claiming once the first heartbeat registered the agent; an agent asked to stop
    before that (here its registry refuses every connection) has no claim in flight to wait for."""
    with socket.socket() as refusing:  # bound and never listening: connections to it are refused
        refusing.bind(("127.0.0.1", 0))
        env = {
            "MCP_MESH_REGISTRY_URL": f"http://127.0.0.1:{refusing.getsockname()[1]}",
            "MESH_SERVER__SHUTDOWN_GRACE": "60",
        }
        with run_agent("tests.apps.jobs_app", env=env) as agent:
            # it joined (its claim loops wait for a registration) and its first heartbeat failed
            wait_until(lambda: "heartbeat failed" in agent.text(), 20)
            agent.process.send_signal(signal.SIGTERM)
            assert agent.process.wait(timeout=30) == 0  # long before the 60 s grace
    assert "stopping: leaving the mesh, 0 call(s) in flight, 0 job(s) running, up to 60.0s" in agent.text()


async def test_mcp_tasks_still_running_when_the_agent_stops_end_failed_in_both_protocol_versions() -> None:
    """MCP tasks live in the agent's memory: while it drains they read `failed` ("agent stopped"), in
    the form each version gives a failure that is not the tool's own (an error, not a tool result)."""
    from mesh_framework import MeshApplication
    from mesh_framework.jobs.mcp_tasks import TASKS_EXTENSION
    from mesh_framework.protocol.versions import META_CLIENT_CAPABILITIES
    from mesh_framework.testing import mesh_client
    from mesh_framework.testing.client import build_request

    app = MeshApplication.load("tests.apps.jobs_app", environ={"MESH_REGISTRY__ENABLED": "false"})
    async with mesh_client(app) as client:

        async def modern(method: str, params: dict[str, Any], name: str) -> dict[str, Any]:
            body, headers = build_request(method, params, modern=True, name=name)
            body["params"]["_meta"][META_CLIENT_CAPABILITIES] = {"extensions": {TASKS_EXTENSION: {}}}
            answer: dict[str, Any] = (await client.http.post(client.path, json=body, headers=headers)).json()
            return answer

        created = await modern("tools/call", {"name": "hold", "arguments": {"name": "never"}}, "hold")
        current = created["result"]["taskId"]
        legacy = await client.result(
            "tools/call", {"name": "hold", "arguments": {"name": "never"}, "task": {}}, modern=False
        )
        older = legacy["task"]["taskId"]
        await app.container.job_service().stop(0)  # what a stop does once the grace is over

        task = (await modern("tasks/get", {"taskId": current}, current))["result"]
        assert task["status"] == "failed" and task["error"]["message"] == "agent stopped", task
        task = await client.result("tasks/get", {"taskId": older}, modern=False)
        assert task["status"] == "failed" and task["statusMessage"] == "agent stopped", task
        answer = (await client.request("tasks/result", {"taskId": older}, modern=False)).json()
        assert answer["error"]["message"] == "agent stopped", answer
        row = await client.call_ok("__mesh_job_status", {"job_id": older})
        assert (row["status"], row["error"]) == ("failed", "agent stopped")
