"""The gateway: catalog servers' tools re-served by an agent, in process and across a real mesh."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from typing import Any

from mesh_framework import FunctionToolCallback, MeshApplication
from mesh_framework.callbacks.catalog_gateway import GatewayTool
from mesh_framework.testing import mesh_client

from ..agents import ROOT, run_agent, run_cli, run_registry, wait_until
from ..mcp_servers import free_port, serve

FIXTURES = str(ROOT / "tests" / "servers")
ENV = {"PYTHON": sys.executable, "FIXTURES": FIXTURES}


def load(**env: str) -> MeshApplication:
    return MeshApplication.load("tests.apps.gateway_app", environ={**ENV, **env})


def names(tools: list[dict[str, Any]]) -> list[str]:
    return [t["name"] for t in tools]


async def test_gateway_tools_are_served_beside_local_ones() -> None:
    async with mesh_client(load()) as client:
        tools = {t["name"]: t for t in await client.list_tools()}
        assert {"fails", "catalog_tools", "good", "alt_1_fails", "meta", "die"} <= tools.keys()
        assert tools["good"]["inputSchema"]["properties"]["text"]["type"] == "string"
        assert tools["good"]["description"] == "Echo text"
        good = await client.call_tool("good", {"text": "through the gateway"})
        assert good["content"][0]["text"] == "good: through the gateway" and not good["isError"]
        remote = await client.call_tool("alt_1_fails", {})
        assert remote["isError"] and remote["content"][0]["text"] == "disk quota exceeded"
        local = await client.call_tool("fails", {})
        assert local["structuredContent"] == {"result": "the local one"}
        # Both eras list them.
        assert "good" in names(await client.list_tools(modern=False))


async def test_a_gateway_tool_answers_within_the_callers_budget() -> None:
    """A forwarded call is bounded by the caller's budget: past it, the tool answers that the budget ran out
    (the forwarded call cancelled); without a budget it answers what the server answered."""
    release = asyncio.Event()

    async def slow(text: str) -> str:
        await release.wait()
        return text

    tool = GatewayTool(FunctionToolCallback.of(slow))
    spent = await tool.call({"text": "late"}, deadline=time.monotonic() + 0.05)
    assert spent["isError"]
    assert "the caller's time budget (X-Mesh-Timeout) ran out" in spent["content"][0]["text"]
    release.set()
    answer = await tool.call({"text": "in time"})
    assert not answer["isError"] and answer["content"][0]["text"] == "in time"


async def test_gateway_follows_the_servers_tool_list() -> None:
    port = free_port()
    with serve([sys.executable, "-m", "tests.servers.stateful_http", str(port)], port):
        app = load(STATEFUL_URL=f"http://127.0.0.1:{port}/mcp", MESH_MCP__GATEWAY='["stateful"]')
        async with mesh_client(app) as client:
            assert "ping" in names(await client.list_tools())
            assert (await client.call_tool("grow", {"name": "sprouted"}))["isError"] is False
            for _ in range(100):
                if "sprouted" in names(await client.list_tools()):
                    break
                await asyncio.sleep(0.05)
            assert "sprouted" in names(await client.list_tools())
            answer = await client.call_tool("sprouted", {"text": "hi"})
            assert answer["content"][0]["text"] == "sprouted: hi"
            # A component listening for ToolsChanged heard it.
            watch = app.container.tool_watch()
            assert any("sprouted" in [t.name for t in e.tools] for e in watch.changes)


async def test_a_gateway_server_down_at_start_joins_when_it_comes_up() -> None:
    port = free_port()
    app = load(STATEFUL_URL=f"http://127.0.0.1:{port}/mcp", MESH_MCP__GATEWAY='["odd", "stateful"]')
    with contextlib.ExitStack() as servers:  # the server stops after the agent closed its session
        async with mesh_client(app) as client:
            listed = names(await client.list_tools())
            assert "good" in listed and "ping" not in listed
            servers.enter_context(
                serve([sys.executable, "-m", "tests.servers.stateful_http", str(port)], port)
            )
            for _ in range(200):
                if "ping" in names(await client.list_tools()):
                    break
                await asyncio.sleep(0.05)
            assert "ping" in names(await client.list_tools())
            assert (await client.call_tool("ping", {}))["content"][0]["text"] == "pong"


async def test_callback_providers_are_beans_injected_by_type() -> None:
    from mesh_framework import McpToolCallbackProvider

    app = load()
    async with mesh_client(app):
        watch = app.container.tool_watch()
        assert (
            isinstance(watch.tools, McpToolCallbackProvider)
            and watch.tools is app.container.mcp_tool_callbacks()
        )
        assert [c.name for c in watch.tools.connections] == ["odd", "stateful"]
        assert [c.definition.name for c in await watch.local.get_tool_callbacks()] == ["fails"]
        assert await (await watch.local.find("fails")).call() == "the local one"


async def test_local_tools_can_use_catalog_callbacks() -> None:
    async with mesh_client(load()) as client:
        result = await client.call_tool("catalog_tools", {})
        assert {"good", "ping"} & set(result["structuredContent"]["result"]) == {"good"}


def test_a_stdio_server_is_reachable_across_the_mesh() -> None:
    with run_registry() as registry:
        env = {**ENV, "MCP_MESH_REGISTRY_URL": registry.base_url}
        with run_agent("tests.apps.gateway_app", env=env):
            answer: Any = None

            def called() -> bool:
                nonlocal answer
                answer = run_cli(["call", "good", '{"text": "hello mesh"}'], env=env)
                return answer.returncode == 0

            assert wait_until(called, timeout=20), answer.stderr
            assert answer.stdout.strip() == "good: hello mesh"
            listing = run_cli(["list"], env=env)
            assert "good" in listing.stdout and "alt_1_fails" in listing.stdout


def test_fail_fast_names_every_unreachable_server() -> None:
    env = {**ENV, "MESH_MCP__FAIL_FAST": "true", "MESH_MCP__GATEWAY": '["odd", "stateful"]'}
    result = run_cli(["run", "tests.apps.gateway_app", "--port", "0"], env=env)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert (
        "Invalid configuration:\n  - MCP server 'stateful': refused the connection at "
        "http://127.0.0.1:9/mcp; is the server running?"
    ) in result.stderr


def test_heartbeat_payload_advertises_gateway_tools_as_capabilities() -> None:
    from mesh_framework.mesh.registration import heartbeat_payload

    async def payload() -> dict[str, Any]:
        app = load()
        async with mesh_client(app):
            return heartbeat_payload(app.settings, app.container.tools(), 9000)

    tools = {t["function_name"]: t for t in asyncio.run(payload())["tools"]}
    assert tools["good"]["capability"] == "good" and "gateway" in tools["good"]["tags"]
    assert tools["good"]["kwargs"]["gateway"] == "odd"
    assert json.dumps(tools["good"]["inputSchema"])
