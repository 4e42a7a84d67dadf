"""Streaming with the real MCP Mesh, both ways, on its Go registry: an mcp-mesh 3.8 consumer's
`proxy.stream()` reads our `Stream[str]` tool, and our `dep.stream()` reads an mcp-mesh streaming tool.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client

from tests.agents import AgentProcess, loopback, run_agent
from tests.agents import wait_until as wait_for
from tests.interop.mcp_mesh import (
    AGENTS_DIR,
    MeshAgent,
    MeshRegistry,
    ours,
    registry_agents,
    run_mesh_python_agent,
)
from tests.mesh.test_mesh_integration import call

pytestmark = pytest.mark.timeout(120)

ACCEPT = "application/json, text/event-stream"


def streamed(endpoint: str, tool: str, arguments: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """A raw streamed `tools/call` (progress token 1, as MCP Mesh's proxy sends): chunks and result."""
    body = {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": {"progressToken": 1}},
    }
    response = loopback.post(endpoint.rstrip("/") + "/mcp", json=body, headers={"Accept": ACCEPT}, timeout=30)
    messages = [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]
    chunks = [m["params"]["message"] for m in messages if m.get("method") == "notifications/progress"]
    assert all(m["params"]["progressToken"] == 1 for m in messages if "method" in m)
    (answer,) = [m for m in messages if m.get("id") == 5]
    return chunks, answer["result"]


def our_tool_registered(shared_registry: MeshRegistry, agent: str, tool: str) -> dict[str, Any] | None:
    for entry in registry_agents(shared_registry):
        if entry.get("name") == agent and entry.get("status") == "healthy":
            for listed in entry.get("tools") or entry.get("capabilities") or []:
                if listed.get("function_name", listed.get("name")) == tool:
                    return dict(listed)
    return None


@pytest.fixture(scope="module")
def our_streamer(shared_registry: MeshRegistry) -> Iterator[AgentProcess]:
    with run_agent("tests.apps.stream_app", env=ours(shared_registry)) as running:
        wait_for(lambda: our_tool_registered(shared_registry, "streamer", "chat"), timeout=15)
        yield running


def test_an_mcp_mesh_consumer_reads_our_stream_tool_with_proxy_stream(
    shared_registry: MeshRegistry, our_streamer: AgentProcess
) -> None:
    with run_mesh_python_agent(AGENTS_DIR / "stream_consumer.py", shared_registry) as reader:

        def chunks() -> list[str] | None:
            result = reader.call_tool("read_chat", {"prompt": "mesh"}).get("result") or {}
            value = (result.get("structuredContent") or {}).get("result")
            return value if value and value != ["chat unavailable"] else None

        assert wait_for(chunks, timeout=30) == ["Hello", " ", "world", "!", " (mesh)"]
        # its own Stream[str] tool re-yields our chunks, one notification each, under its caller's token
        relayed, result = streamed(reader.endpoint, "relay_chat", {"prompt": "hop"})
        assert relayed == ["Hello", " ", "world", "!", " (hop)"]
        assert result["content"][0]["text"] == "Hello world! (hop)"


def test_our_dep_stream_reads_an_mcp_mesh_stream_tool(shared_registry: MeshRegistry) -> None:
    with (
        run_mesh_python_agent(AGENTS_DIR / "stream_producer.py", shared_registry) as producer,
        run_agent("tests.apps.stream_relay_app", env=ours(shared_registry)) as relay,
    ):
        raw, _result = streamed(producer.endpoint, "mesh_chat", {"prompt": "raw"})
        assert raw == ["Mesh", " says", " hi", " to", " raw"]  # what the producer sends, for reference
        collected = wait_for(
            lambda: (r := call(relay, "collect", {"prompt": "us"})) and not r["isError"] and r
        )
        assert collected["structuredContent"] == {"result": ["Mesh", " says", " hi", " to", " us"]}  # type: ignore[index]
        _relayed_through_us(relay, producer)


def _relayed_through_us(relay: AgentProcess, producer: MeshAgent) -> None:
    """Our Stream[str] tool re-yields the mcp-mesh chunks to an SDK client, one progress each."""
    seen: list[str | None] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(message)

    async def run() -> Any:
        async with Client(relay.mcp_url, mode="2026-07-28") as client:
            return await client.call_tool("relay_mesh", {"prompt": "sdk"}, progress_callback=on_progress)

    result = asyncio.run(run())
    assert seen == ["Mesh", " says", " hi", " to", " sdk"]
    assert [c.text for c in result.content] == ["Mesh says hi to sdk"]
    assert producer.process.poll() is None
