"""`tools.listChanged` says whether an agent's tools can change, and clients hear when they do: a gateway
agent (its catalog servers' tools come and go) declares it and notifies handshake-era clients on a `GET`
stream and 2026-07-28 clients on `subscriptions/listen`; an agent without one declares it false."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from mcp import Client

from mesh_framework import MeshApplication
from mesh_framework.testing import mesh_client
from mesh_framework.testing.client import build_request

from ..agents import ROOT, run_agent
from ..mcp_servers import free_port, serve

pytestmark = pytest.mark.timeout(90)

ENV = {"PYTHON": sys.executable, "FIXTURES": str(ROOT / "tests" / "servers")}


async def events(response: httpx2.Response) -> AsyncIterator[dict[str, Any]]:
    async for line in response.aiter_lines():
        if line.startswith("data: "):
            yield json.loads(line[6:])


async def test_a_gateway_agent_declares_list_changes_and_notifies_both_eras() -> None:
    port = free_port()
    with serve([sys.executable, "-m", "tests.servers.stateful_http", str(port)], port):
        env = {**ENV, "STATEFUL_URL": f"http://127.0.0.1:{port}/mcp", "MESH_MCP__GATEWAY": '["stateful"]'}
        with run_agent("tests.apps.gateway_app", env=env) as agent:
            async with (
                Client(agent.mcp_url, mode="auto") as modern,  # discovers 2026-07-28
                httpx2.AsyncClient(timeout=30, trust_env=False) as http,
            ):
                discovered = modern.server_capabilities.tools
                assert modern.protocol_version == "2026-07-28"
                assert discovered is not None and discovered.list_changed is True
                body, headers = build_request(
                    "initialize", {"protocolVersion": "2025-11-25"}, modern=False, name=None
                )
                initialized = (await http.post(agent.mcp_url, json=body, headers=headers)).json()["result"]
                assert initialized["capabilities"]["tools"] == {"listChanged": True}
                get = {"Accept": "text/event-stream"}
                async with (
                    modern.listen(tools_list_changed=True) as subscription,
                    http.stream("GET", agent.mcp_url, headers=get) as legacy,
                ):
                    assert subscription.honored.tools_list_changed is True
                    assert legacy.status_code == 200
                    assert legacy.headers["content-type"].startswith("text/event-stream")
                    added = await modern.call_tool("grow", {"name": "sprouted"})
                    assert added.is_error is False
                    heard = await asyncio.wait_for(anext(aiter(subscription)), 20)
                    assert type(heard).__name__ == "ToolsListChanged"
                    legacy_events = events(legacy)
                    notification = await asyncio.wait_for(anext(legacy_events), 20)
                    assert notification == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
                    assert "sprouted" in [t.name for t in (await modern.list_tools()).tools]
                    # the agent stops: both streams end at once, not after server.shutdown_grace (10 s)
                    agent.process.send_signal(signal.SIGTERM)
                    assert [e async for e in subscription] == []  # a graceful end: no SubscriptionLost
                    assert [e async for e in legacy_events] == []
                    agent.process.wait(timeout=5)  # well before the 10 s grace


async def test_an_agent_whose_tools_cannot_change_says_so() -> None:
    app = MeshApplication.load("tests.apps.conformance_app", environ={"MESH_REGISTRY__ENABLED": "false"})
    async with mesh_client(app) as client:
        discovered = await client.result("server/discover")
        assert discovered["capabilities"]["tools"] == {"listChanged": False}
        response = await client.http.get(client.path, headers={"Accept": "text/event-stream"})
        assert response.status_code == 405 and response.headers["allow"] == "POST"
        # subscriptions/listen: acknowledged with nothing honoured, and ended at once
        body, headers = build_request(
            "subscriptions/listen", {"notifications": {"toolsListChanged": True}}, modern=True, name=None
        )
        listened = await client.http.post(client.path, json=body, headers=headers)
        frames = [json.loads(line[6:]) for line in listened.text.splitlines() if line.startswith("data: ")]
        ack, end = frames
        assert ack["method"] == "notifications/subscriptions/acknowledged"
        assert ack["params"]["notifications"] == {}
        subscription_id = ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
        assert subscription_id == body["id"] and end["id"] == body["id"]
        assert end["result"]["resultType"] == "complete"
        assert end["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == body["id"]
        body, headers = build_request("subscriptions/listen", {}, modern=True, name=None)
        refused = await client.http.post(client.path, json=body, headers=headers)
        assert refused.status_code == 400 and refused.json()["error"]["code"] == -32602


async def test_listen_refuses_task_notifications_to_clients_without_the_extension() -> None:
    app = MeshApplication.load("tests.apps.conformance_app", environ={"MESH_REGISTRY__ENABLED": "false"})
    async with mesh_client(app) as client:
        body, headers = build_request(
            "subscriptions/listen", {"notifications": {"taskIds": ["x"]}}, modern=True, name=None
        )
        refused = await client.http.post(client.path, json=body, headers=headers)
        assert refused.status_code == 400 and refused.json()["error"]["code"] == -32021
