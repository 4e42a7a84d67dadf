"""`mesh gateway`: the MCP SDK client against the gateway, on a real registry with real agents.

One mesh for the module (a registry; `tools`, `other` and `front` agents; a gateway listing every tool, one
in search mode and one filtered by tags), and a mesh of its own for what changes the mesh (tools appearing
and disappearing, failover when an agent dies)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import pytest
from mcp import Client, MCPError

from mesh_framework.testing.client import build_request

from ..agents import AgentProcess, run_agent, run_mesh, run_registry, wait_until

pytestmark = pytest.mark.timeout(120)

TOOLS = "tests.apps.mesh_gateway_app"
ELICITS = {"elicitation": {}}
MESH_TOOLS = {
    "ask_name",
    "count",
    "echo",
    "greet",
    "needs_sampling",
    "other_convert",
    "steps",
    "tools_convert",
}


@pytest.fixture(scope="module")
def mesh() -> Iterator[dict[str, AgentProcess]]:
    with contextlib.ExitStack() as stack:
        registry = stack.enter_context(run_registry(0, "--timeout", "120"))
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
        tools = stack.enter_context(run_agent(TOOLS, env=env))
        other = stack.enter_context(run_agent("tests.apps.mesh_gateway_other", env=env))
        front = stack.enter_context(run_agent("tests.apps.mesh_gateway_front", env=env))
        wait_until(lambda: "ask_name -> " in front.text(), timeout=30)  # greet's dependency resolved
        gateway = stack.enter_context(run_mesh(["gateway", "--port", "0"], env=env))
        search = stack.enter_context(run_mesh(["gateway", "--port", "0", "--discovery", "search"], env=env))
        tagged = stack.enter_context(
            run_mesh(["gateway", "--port", "0", "--tags", "text", "--exclude-tags", "slow"], env=env)
        )
        yield {
            "registry": registry,
            "tools": tools,
            "other": other,
            "front": front,
            "gateway": gateway,
            "search": search,
            "tagged": tagged,
        }


async def legacy_request(url: str, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    body, headers = build_request(method, params or {}, modern=False, name=None)
    async with httpx2.AsyncClient(timeout=30, trust_env=False) as http:
        answer = (await http.post(url, json=body, headers=headers)).json()
    assert isinstance(answer, dict)
    return answer


# -- serving --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
async def test_every_tool_of_the_mesh_is_served_in_both_eras(
    mesh: dict[str, AgentProcess], mode: str
) -> None:
    async with Client(mesh["gateway"].mcp_url, mode=mode) as client:  # type: ignore[arg-type]
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert set(listed) == MESH_TOOLS  # the job and status tools of each agent are not served
        assert listed["echo"].input_schema["required"] == ["text"]
        assert listed["echo"].description == "Echo the text back, naming the replica that answered."
        answer = await client.call_tool("echo", {"text": "hi"})
        assert answer.is_error is False
        assert answer.structured_content == {"text": "hi", "replica": "1"}


async def test_one_name_offered_as_two_tools_is_two_tools_prefixed_by_agent(
    mesh: dict[str, AgentProcess],
) -> None:
    async with Client(mesh["gateway"].mcp_url, mode="2026-07-28") as client:
        money = await client.call_tool("other_convert", {"amount": 10, "currency": "USD"})
        length = await client.call_tool("tools_convert", {"value": 1, "unit": "m"})
    assert money.content[0].text == "9.00 EUR from USD"  # type: ignore[union-attr]
    assert length.content[0].text == "3.28"  # type: ignore[union-attr]


async def test_tags_filter_what_is_served(mesh: dict[str, AgentProcess]) -> None:
    async with Client(mesh["tagged"].mcp_url, mode="2026-07-28") as client:
        assert {t.name for t in (await client.list_tools()).tools} == {"echo"}  # text, not slow


async def test_bad_input_gets_clear_mcp_errors(mesh: dict[str, AgentProcess]) -> None:
    async with Client(mesh["gateway"].mcp_url, mode="2026-07-28") as client:
        wrong = await client.call_tool("echo", {"txt": "hi"})
        assert wrong.is_error is True
        said = wrong.content[0].text  # type: ignore[union-attr]
        assert "Invalid arguments for tool 'echo'" in said and "text: required argument is missing" in said
        with pytest.raises(MCPError, match="Unknown tool 'nope'"):
            await client.call_tool("nope", {})
    refused = await legacy_request(mesh["gateway"].mcp_url, "tools/call", {"name": "nope", "arguments": {}})
    assert refused["error"]["code"] == -32602 and "Unknown tool 'nope'" in refused["error"]["message"]


async def test_a_host_not_allowed_is_refused_on_mcp_and_elsewhere(mesh: dict[str, AgentProcess]) -> None:
    body, headers = build_request("tools/list", {}, modern=False, name=None)
    async with httpx2.AsyncClient(timeout=30, trust_env=False) as http:
        mcp = await http.post(mesh["gateway"].mcp_url, json=body, headers={**headers, "host": "evil.example"})
        health = await http.get(mesh["gateway"].base_url + "/health", headers={"host": "evil.example"})
        ready = await http.get(mesh["gateway"].base_url + "/ready")
    assert mcp.status_code == 421 and "Invalid Host header" in mcp.text
    assert health.status_code == 421
    assert ready.status_code == 200 and ready.json()["ready"] is True


async def test_a_streaming_tool_streams_through_the_gateway(mesh: dict[str, AgentProcess]) -> None:
    chunks: list[str | None] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        chunks.append(message)

    async with Client(mesh["gateway"].mcp_url, mode="2026-07-28") as client:
        answer = await client.call_tool("count", {"n": 4}, progress_callback=progress)
    assert chunks == ["1 ", "2 ", "3 ", "4 "]
    assert answer.content[0].text == "1 2 3 4 "  # type: ignore[union-attr]


async def post(
    url: str, method: str, params: dict[str, Any], *, modern: bool, capabilities: dict[str, Any] | None = None
) -> httpx2.Response:
    body, headers = build_request(method, params, modern=modern, name=None)
    if capabilities:  # what the 2026-07-28 client declares it can do
        body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = capabilities
    async with httpx2.AsyncClient(timeout=30, trust_env=False) as http:
        return await http.post(url, json=body, headers=headers)


def sse_messages(response: httpx2.Response) -> list[dict[str, Any]]:
    assert response.headers["content-type"].startswith("text/event-stream"), response.text
    return [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]


@pytest.mark.parametrize("modern", [True, False], ids=["2026-07-28", "legacy"])
async def test_progress_and_logs_of_a_tool_answered_in_one_piece_reach_the_client(
    mesh: dict[str, AgentProcess], modern: bool
) -> None:
    meta: dict[str, Any] = {"progressToken": "tok-7"}
    if modern:
        meta["io.modelcontextprotocol/logLevel"] = "info"  # a handshake-era client gets every level
    call = {"name": "steps", "arguments": {"n": 3}, "_meta": meta}
    messages = sse_messages(await post(mesh["gateway"].mcp_url, "tools/call", call, modern=modern))
    progress = [m["params"] for m in messages if m.get("method") == "notifications/progress"]
    logs = [m["params"] for m in messages if m.get("method") == "notifications/message"]
    assert progress == [
        {"progressToken": "tok-7", "progress": float(i), "total": 3.0, "message": f"step {i}"}
        for i in (1, 2, 3)
    ]
    infos = [{"level": "info", "data": f"did step {i}"} for i in (1, 2, 3)]
    if modern:
        assert logs == infos
    else:
        assert [entry for entry in logs if entry["level"] == "info"] == infos
        assert [entry["data"] for entry in logs if entry["level"] == "debug"] == [
            f"step {i} in detail" for i in (1, 2, 3)
        ]
    assert messages[-1]["result"]["structuredContent"] == {"steps": 3}


async def test_a_call_asking_no_notification_is_answered_in_one_piece(mesh: dict[str, AgentProcess]) -> None:
    call = {"name": "steps", "arguments": {"n": 2}}
    answer = await post(mesh["gateway"].mcp_url, "tools/call", call, modern=True)
    assert answer.headers["content-type"] == "application/json"
    assert answer.json()["result"]["structuredContent"] == {"steps": 2}


async def test_an_agents_refusal_reaches_the_client_as_the_same_json_rpc_error(
    mesh: dict[str, AgentProcess],
) -> None:
    undeclared = {"name": "needs_sampling", "arguments": {}}
    direct = await post(mesh["tools"].mcp_url, "tools/call", undeclared, modern=True)
    relayed = await post(mesh["gateway"].mcp_url, "tools/call", undeclared, modern=True)
    assert direct.status_code == relayed.status_code == 400
    assert relayed.json()["error"] == direct.json()["error"]
    assert relayed.json()["error"]["code"] == -32021
    assert relayed.json()["error"]["data"] == {"requiredCapabilities": {"sampling": {}}}
    # a requestState altered on its way back: the agent that signed it refuses it, through the gateway too
    ask = {"name": "ask_name", "arguments": {}}
    first = await post(mesh["gateway"].mcp_url, "tools/call", ask, modern=True, capabilities=ELICITS)
    state = first.json()["result"]["requestState"]
    tampered = {
        "name": "ask_name",
        "arguments": {},
        "inputResponses": {"who": {"action": "accept", "content": {"name": "Eve"}}},
        "requestState": state[:-2] + ("AA" if state[-2:] != "AA" else "BB"),
    }
    refused = await post(mesh["gateway"].mcp_url, "tools/call", tampered, modern=True, capabilities=ELICITS)
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == -32602 and "id" in refused.json()
    assert refused.json()["id"] is not None
    legacy = await post(mesh["gateway"].mcp_url, "tools/call", tampered, modern=False)
    assert legacy.status_code == 200 and legacy.json()["error"]["code"] == -32602


async def test_input_asked_by_the_tool_reaches_the_client_and_back(mesh: dict[str, AgentProcess]) -> None:
    asked: list[str] = []

    async def answer(_context: Any, params: Any) -> Any:
        from mcp.types import ElicitResult

        asked.append(params.message)
        return ElicitResult(action="accept", content={"name": "Ada"})

    async with Client(mesh["gateway"].mcp_url, mode="2026-07-28", elicitation_callback=answer) as client:
        result = await client.call_tool("ask_name", {})
    assert asked == ["Who is there?"]
    assert result.content[0].text == "name=Ada"  # type: ignore[union-attr]


# -- search mode ----------------------------------------------------------------------------------------


async def test_search_mode_serves_three_tools_that_find_describe_and_call(
    mesh: dict[str, AgentProcess],
) -> None:
    async with Client(mesh["search"].mcp_url, mode="2026-07-28") as client:
        listed = {t.name for t in (await client.list_tools()).tools}
        assert listed == {"search_tools", "describe_tool", "call_tool"}
        found = await client.call_tool("search_tools", {"query": "money in euros"})
        assert found.structured_content is not None
        hits = found.structured_content["result"]
        assert hits[0]["name"] == "other_convert" and hits[0]["parameters"] == ["amount", "currency"]
        tagged = await client.call_tool("search_tools", {"query": "convert", "tags": ["metric"]})
        assert [h["name"] for h in tagged.structured_content["result"]] == ["tools_convert"]  # type: ignore[index]
        described = await client.call_tool("describe_tool", {"name": "echo"})
        assert described.structured_content is not None
        assert described.structured_content["inputSchema"]["required"] == ["text"]
        called = await client.call_tool("call_tool", {"name": "echo", "arguments": {"text": "found"}})
        assert called.structured_content == {"text": "found", "replica": "1"}


async def test_search_mode_bad_input_is_a_clear_error(mesh: dict[str, AgentProcess]) -> None:
    async with Client(mesh["search"].mcp_url, mode="2026-07-28") as client:
        empty = await client.call_tool("search_tools", {"query": "  "})
        missing = await client.call_tool("describe_tool", {"name": "nope"})
        unknown = await client.call_tool("call_tool", {"name": "nope", "arguments": {}})
        bad = await client.call_tool("call_tool", {"name": "echo", "arguments": {"txt": 1}})
        limit = await client.call_tool("search_tools", {"query": "echo", "limit": 0})
    for result, words in (
        (empty, "search_tools needs a query"),
        (missing, "describe_tool: no tool named 'nope'"),
        (unknown, "call_tool: no tool named 'nope'"),
        (bad, "Invalid arguments for tool 'echo'"),
        (limit, "limit must be between 1 and 50"),
    ):
        assert result.is_error is True
        assert words in result.content[0].text  # type: ignore[union-attr]


# -- a mesh that changes --------------------------------------------------------------------------------


async def events(response: httpx2.Response) -> AsyncIterator[dict[str, Any]]:
    async for line in response.aiter_lines():
        if line.startswith("data: "):
            yield json.loads(line[6:])


async def test_tools_appear_and_disappear_live_and_calls_fail_over() -> None:
    # agents heartbeat every 0.5 s and the registry marks one unhealthy after 3 s without: a replica that
    # dies unannounced leaves the list within that, one stopped leaves it at once
    with (
        run_registry(0, "--timeout", "3") as registry,
        run_mesh(["gateway", "--port", "0"], env={"MCP_MESH_REGISTRY_URL": registry.base_url}) as gateway,
    ):
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MESH_REGISTRY__HEARTBEAT_INTERVAL": "0.5"}
        async with (
            Client(gateway.mcp_url, mode="2026-07-28") as client,
            httpx2.AsyncClient(timeout=30, trust_env=False) as http,
        ):
            assert (await client.list_tools()).tools == []
            async with (
                client.listen(tools_list_changed=True) as subscription,
                http.stream("GET", gateway.mcp_url, headers={"Accept": "text/event-stream"}) as legacy,
            ):
                assert subscription.honored.tools_list_changed is True
                legacy_events = events(legacy)
                with contextlib.ExitStack() as replicas:
                    started = {
                        n: replicas.enter_context(run_agent(TOOLS, env={**env, "REPLICA": n})) for n in "12"
                    }
                    heard = await asyncio.wait_for(anext(aiter(subscription)), 30)
                    assert type(heard).__name__ == "ToolsListChanged"
                    notice = await asyncio.wait_for(anext(legacy_events), 30)
                    assert notice["method"] == "notifications/tools/list_changed"
                    await _until(client, lambda names: "echo" in names)
                    await _until_providers(gateway, 2)
                    # both replicas serve echo: one tool; the one answering dies unannounced (the registry
                    # lists it healthy for a while): the proxy finds it gone and the other one answers
                    first = await client.call_tool("echo", {"text": "a"})
                    answered = first.structured_content["replica"]  # type: ignore[index]
                    started[answered].process.send_signal(signal.SIGKILL)
                    started[answered].process.wait(timeout=10)
                    after = await client.call_tool("echo", {"text": "b"})
                    assert after.is_error is False
                    assert after.structured_content == {"text": "b", "replica": "21"[int(answered) - 1]}
                # the dead replica is unhealthy by now, the other stopped (it deregisters): echo is gone
                await _until(client, lambda names: "echo" not in names)


async def _until_providers(gateway: AgentProcess, count: int) -> None:
    """Until the gateway's log says it serves the tools of `count` agents (both replicas known)."""
    await asyncio.wait_for(
        asyncio.to_thread(wait_until, lambda: f"of {count} agent(s)" in gateway.text(), 30), 35
    )


async def _until(client: Client, check: Any, timeout: float = 30.0) -> None:
    async def poll() -> None:
        while not check({t.name for t in (await client.list_tools()).tools}):
            await asyncio.sleep(0.05)

    await asyncio.wait_for(poll(), timeout)
