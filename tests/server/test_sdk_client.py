"""A real client: the `mcp` SDK's Client, in both protocol eras, against a real agent process."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from mcp import Client

from mesh_framework.jobs.tools import JOB_TOOLS
from tests.agents import AgentProcess, run_agent


@pytest.fixture(scope="module")
def agent() -> Iterator[AgentProcess]:
    with run_agent("starter_app") as running:
        yield running


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy", "auto"])
async def test_sdk_client_lists_and_calls(agent: AgentProcess, mode: str) -> None:
    async with Client(agent.mcp_url, mode=mode) as client:  # type: ignore[arg-type]
        tools = await client.list_tools()
        assert [t.name for t in tools.tools] == [
            "greet",
            "add",
            "jot",
            "slow_echo",
            "ask",
            "countdown",
            "whoami",
            *JOB_TOOLS,
        ]
        added = await client.call_tool("add", {"a": 2, "b": 3})
        assert added.is_error is False
        assert added.structured_content == {"result": 5}
        greeted = await client.call_tool("greet", {"name": "Bo"})
        assert greeted.structured_content is not None
        assert greeted.structured_content["text"] == "Hello, Bo!"
        failed = await client.call_tool("add", {"a": "x", "b": 3})
        assert failed.is_error is True
