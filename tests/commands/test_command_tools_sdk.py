"""The sample click application served by a real agent process and called over HTTP with the `mcp` SDK's
Client, in both protocol modes; its status sections read over HTTP."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from mcp import Client

from tests.agents import AgentProcess, run_agent, wait_until
from tests.commands.test_command_tools_run import process_exists


@pytest.fixture(scope="module")
def agent() -> Iterator[AgentProcess]:
    # `status` runs inline here (per-tool settings from the environment); the others in the background
    with run_agent(
        "tests.apps.click_app", env={"MESH_COMMANDS__TOOLS__STATUS__BACKGROUND": "false"}
    ) as running:
        yield running


async def job_outcome(client: Any, job_id: str) -> dict[str, Any]:
    for _ in range(400):  # bounded poll, as a client of the job tools does
        result = await client.call_tool("__mesh_job_result", {"job_id": job_id})
        if result.structured_content["status"] not in ("working", "queued"):
            return result.structured_content  # type: ignore[no-any-return]
        await asyncio.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish")


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
async def test_commands_over_http(agent: AgentProcess, mode: str) -> None:
    logged: list[Any] = []

    async def on_log(params: Any) -> None:
        logged.append(params)

    async with Client(agent.mcp_url, mode=mode, logging_callback=on_log, log_level="info") as client:  # type: ignore[arg-type]
        inline = await client.call_tool("status", {})
        assert inline.is_error is False
        assert inline.structured_content == {
            "command": "cli status",
            "exit_code": 0,
            "output": ["cluster: up", "nodes: 3"],
        }
        assert [(p.level, p.data) for p in logged] == [("info", "cluster: up"), ("info", "nodes: 3")]

        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert {"status", "cassandra_update_config", "cassandra_stress_start", "disk_usage"} <= set(tools)
        schema = tools["cassandra_stress_start"].input_schema
        assert schema["properties"]["profile"]["enum"] == ["read", "write", "mixed"]
        assert schema["required"] == ["keyspace"]

        handle = await client.call_tool("cassandra_stress_start", {"keyspace": "ks", "hosts": ["a", "b"]})
        assert handle.is_error is False
        assert handle.structured_content is not None
        outcome = await job_outcome(client, handle.structured_content["job_id"])
        assert outcome["status"] == "completed"
        assert outcome["result"]["command"] == "cli cassandra stress start"
        assert '"hosts": ["a", "b"]' in outcome["result"]["output"][1]

        failed = await job_outcome(
            client,
            (await client.call_tool("fail", {"code": 9})).structured_content["job_id"],  # type: ignore[index]
        )
        assert failed["status"] == "failed"
        assert failed["error"].startswith("Command 'cli fail' exited with code 9:")

        refused = await client.call_tool("cassandra_update_config", {})
        assert refused.is_error is True


async def test_status_over_http(agent: AgentProcess) -> None:
    async with httpx2.AsyncClient(base_url=agent.base_url) as http:
        everything = (await http.get("/status")).json()
        assert everything["sections"]["cluster"]["data"]["admin"]["password"] == "******"
        one = await http.get("/status", params={"section": "cluster", "live": "true"})
        assert one.status_code == 200
        assert one.json()["data"]["reads"] > everything["sections"]["cluster"]["data"]["reads"]
        assert (await http.get("/status", params={"section": "nope"})).status_code == 404


def test_no_command_outlives_a_killed_agent(agent: AgentProcess) -> None:
    """Last in this module: it kills the agent."""

    async def start_hang() -> int:
        async with Client(agent.mcp_url, mode="2026-07-28") as client:
            handle = await client.call_tool("hang", {})
            job_id = handle.structured_content["job_id"]  # type: ignore[index]
            for _ in range(200):
                status = await client.call_tool("__mesh_job_status", {"job_id": job_id})
                if status.structured_content["messages"]:  # type: ignore[index]
                    return int(status.structured_content["messages"][0].rpartition(" ")[2])  # type: ignore[index]
                await asyncio.sleep(0.02)
        raise AssertionError("the command printed nothing")

    pid = asyncio.run(start_hang())
    assert process_exists(pid)
    agent.process.send_signal(signal.SIGKILL)
    agent.process.wait(timeout=10)
    wait_until(lambda: not process_exists(pid), timeout=3)  # a dead agent enforces no timeout
