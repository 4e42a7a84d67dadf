"""`Stream[str]` tools in process: the wire of a streamed call in both eras, the buffered fallbacks,
failures mid-stream, backpressure, registration and start-up errors."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest

from mesh_framework import MeshApplication, ToolExecutionError, WiringError
from mesh_framework.mesh.proxy import DEFAULT_STREAM_TIMEOUT, InProcessMcpMeshTool
from mesh_framework.mesh.registration import heartbeat_payload
from mesh_framework.mesh.topology import ToolSlots, parse_answer
from mesh_framework.testing import MeshTestClient, mesh_client
from mesh_framework.tools.streaming import STREAM_BUFFER
from tests.apps import stream_app

MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
BOTH = "application/json, text/event-stream"

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
async def client() -> AsyncIterator[MeshTestClient]:
    app = MeshApplication.load("tests.apps.stream_app", environ={})
    async with mesh_client(app) as test_client:
        yield test_client


def events(text: str) -> list[dict[str, Any]]:
    """The JSON messages of an event-stream body, in order."""
    found = []
    for block in text.split("\n\n"):
        data = [line[len("data: ") :] for line in block.splitlines() if line.startswith("data: ")]
        if data:
            found.append(json.loads("\n".join(data)))
    return found


async def call(
    client: MeshTestClient,
    tool: str,
    arguments: dict[str, Any],
    *,
    token: Any = None,
    modern: bool = False,
    accept: str = BOTH,
) -> httpx2.Response:
    params: dict[str, Any] = {"name": tool, "arguments": arguments}
    headers = {"Content-Type": "application/json", "Accept": accept}
    meta: dict[str, Any] = dict(META) if modern else {}
    if token is not None:
        meta["progressToken"] = token
    if meta:
        params["_meta"] = meta
    if modern:
        headers.update({"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": tool})
    body = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params}
    return await client.http.post("/mcp", content=json.dumps(body).encode(), headers=headers)


@pytest.mark.parametrize("modern", [False, True], ids=["handshake-era", "2026-07-28"])
async def test_each_chunk_is_a_progress_notification_then_the_joined_result(
    client: MeshTestClient, modern: bool
) -> None:
    response = await call(client, "chat", {"prompt": "p"}, token="tok-1", modern=modern)
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/event-stream"
    assert response.headers["x-accel-buffering"] == "no"
    *progress, final = events(response.text)
    assert [m["params"] for m in progress] == [
        {"progressToken": "tok-1", "progress": float(n), "message": chunk}
        for n, chunk in enumerate(["Hello", " ", "world", "!", " (p)"])
    ]
    assert all(m["method"] == "notifications/progress" for m in progress)
    assert final["id"] == 9
    result = final["result"]
    assert result["content"] == [{"type": "text", "text": "Hello world! (p)"}]
    assert result["isError"] is False
    assert "structuredContent" not in result
    assert ("resultType" in result) is modern


async def test_an_integer_token_is_echoed_as_an_integer(client: MeshTestClient) -> None:
    response = await call(client, "chat", {"prompt": "p"}, token=7)
    assert events(response.text)[0]["params"]["progressToken"] == 7


@pytest.mark.parametrize("modern", [False, True], ids=["handshake-era", "2026-07-28"])
async def test_a_call_without_a_progress_token_gets_the_buffered_joined_text(
    client: MeshTestClient, modern: bool
) -> None:
    response = await call(client, "chat", {"prompt": "q"}, modern=modern)
    assert response.headers["content-type"] == "application/json"
    result = response.json()["result"]
    assert result["content"] == [{"type": "text", "text": "Hello world! (q)"}]
    assert "structuredContent" not in result


async def test_a_client_that_accepts_only_json_gets_the_buffered_text(client: MeshTestClient) -> None:
    response = await call(client, "chat", {"prompt": "j"}, token="t", accept="application/json")
    assert response.headers["content-type"] == "application/json"
    assert response.json()["result"]["content"][0]["text"] == "Hello world! (j)"


@pytest.mark.parametrize("modern", [False, True], ids=["handshake-era", "2026-07-28"])
async def test_a_failure_after_three_chunks_keeps_them_and_ends_in_an_error_result(
    client: MeshTestClient, modern: bool
) -> None:
    response = await call(client, "chat_fail", {"prompt": "x"}, token="t", modern=modern)
    *progress, final = events(response.text)
    assert [m["params"]["message"] for m in progress] == ["one", "two", "three"]
    assert final["result"]["isError"] is True
    assert final["result"]["content"] == [{"type": "text", "text": "RuntimeError: boom mid-stream (x)"}]


async def test_a_chunk_that_is_not_a_str_ends_the_stream_with_an_error_naming_it(
    client: MeshTestClient,
) -> None:
    *progress, final = events((await call(client, "wrong_chunk", {}, token="t")).text)
    assert [m["params"]["message"] for m in progress] == ["fine"]
    assert final["result"]["isError"] is True
    assert final["result"]["content"][0]["text"] == (
        "Tool 'wrong_chunk' yielded int 42; a Stream[str] tool yields str"
    )


async def test_a_failure_without_a_token_is_an_error_result(client: MeshTestClient) -> None:
    result = (await call(client, "chat_fail", {"prompt": "x"})).json()["result"]
    assert result["isError"] is True
    assert "boom mid-stream (x)" in result["content"][0]["text"]


async def test_bad_arguments_to_a_stream_tool_are_an_error_result(client: MeshTestClient) -> None:
    response = await call(client, "chat", {"prompt": 3}, token="t")
    (final,) = events(response.text)
    assert final["result"]["isError"] is True
    assert "Invalid arguments for tool 'chat': prompt" in final["result"]["content"][0]["text"]


async def test_a_stream_tool_with_a_tool_context_interleaves_its_log_messages(client: MeshTestClient) -> None:
    response = await call(client, "narrated", {"steps": 2}, token="t")
    messages = events(response.text)
    assert [(m.get("method"), (m.get("params") or {}).get("message") or (m.get("params") or {}).get("data"))
            for m in messages[:-1]] == [
        ("notifications/message", "step 0"),
        ("notifications/progress", "<0>"),
        ("notifications/message", "step 1"),
        ("notifications/progress", "<1>"),
    ]  # fmt: skip
    assert messages[-1]["result"]["content"][0]["text"] == "<0><1>"


async def test_tools_list_has_no_output_schema_for_a_stream_tool(client: MeshTestClient) -> None:
    tools = {t["name"]: t for t in await client.list_tools()}
    assert "outputSchema" not in tools["chat"]
    assert tools["chat"]["inputSchema"]["properties"] == {"prompt": {"type": "string"}}
    assert "outputSchema" in tools["stream_state"]


def test_the_heartbeat_registers_a_stream_tool_as_mcp_mesh_does() -> None:
    app = MeshApplication.load("tests.apps.stream_app", environ={})
    app.build()
    tools = {
        t["function_name"]: t for t in heartbeat_payload(app.settings, app.container.tools(), 9)["tools"]
    }
    assert tools["chat"]["kwargs"] == {"function_name": "chat", "stream_type": "text"}
    assert tools["chat"]["outputSchema"] == {"type": "string"}
    assert "stream_type" not in tools["stream_state"]["kwargs"]


def test_stream_tools_that_cannot_be_served_stop_start_up_naming_each_tool() -> None:
    with pytest.raises(WiringError) as caught:
        MeshApplication.load("tests.apps.stream_bad", environ={})
    problems = "\n".join(caught.value.problems)
    assert len(caught.value.problems) == 5, problems
    assert "tool 'tests.apps.stream_bad.numbers': returns a stream of int; only Stream[str]" in problems
    assert (
        "tool 'tests.apps.stream_bad.unannotated': is an async generator but does not return Stream[str]"
        in problems
    )
    assert "tool 'tests.apps.stream_bad.blocking': returns Stream[str] but is not async" in problems
    assert (
        "tool 'tests.apps.stream_bad.in_background': returns Stream[str] and is background=True" in problems
    )
    assert "tool 'tests.apps.stream_bad.as_job': returns Stream[str] and is task=True" in problems


async def test_a_slow_reader_holds_the_tool_back_with_bounded_buffering() -> None:
    """The endpoint's `send` stands for a socket whose client does not read: the tool gets at most the
    channel's bound ahead, then waits; once the reader reads, every chunk arrives, in order."""
    app = MeshApplication.load("tests.apps.stream_app", environ={})
    asgi = app.build()
    body = json.dumps({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "endless", "arguments": {}, "_meta": {"progressToken": "t"}},
    }).encode()  # fmt: skip
    scope = {
        "type": "http", "method": "POST", "path": "/mcp", "headers": [
            (b"content-type", b"application/json"), (b"accept", BOTH.encode()), (b"host", b"127.0.0.1"),
        ],
    }  # fmt: skip
    sent: list[bytes] = []
    reading = asyncio.Event()
    disconnect = asyncio.Event()
    received = 0

    async def receive() -> dict[str, Any]:
        nonlocal received
        received += 1
        if received == 1:
            return {"type": "http.request", "body": body, "more_body": False}
        await disconnect.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body":
            await reading.wait()  # a client that does not read
            sent.append(message["body"])
            if len(sent) == 3 * STREAM_BUFFER:
                disconnect.set()  # and then leaves

    before = dict(stream_app.STATE)
    serving = asyncio.ensure_future(asgi.endpoint(scope, receive, send))
    for _ in range(2000):  # event-loop turns, no clock: the producer runs until the channel is full
        await asyncio.sleep(0)
    ahead = stream_app.STATE["yielded"] - before["yielded"]
    assert STREAM_BUFFER <= ahead <= STREAM_BUFFER + 2
    reading.set()
    await asyncio.wait_for(serving, 10)
    messages = events(b"".join(sent).decode())
    assert [m["params"]["message"] for m in messages[: 3 * STREAM_BUFFER]] == [
        f"tick {n}" for n in range(3 * STREAM_BUFFER)
    ]
    assert stream_app.STATE["closed"] == before["closed"] + 1  # the generator's finally ran
    assert stream_app.STATE["started"] - stream_app.STATE["closed"] == before["started"] - before["closed"]


async def test_an_in_process_dependency_streams_chunk_by_chunk(client: MeshTestClient) -> None:
    app = MeshApplication.load("tests.apps.stream_app", environ={})
    app.build()
    chat = InProcessMcpMeshTool(
        capability="chat", function_name="chat", registry=app.container.tools(), agent_id="me", endpoint=""
    )
    assert [chunk async for chunk in chat.stream(prompt="in")] == ["Hello", " ", "world", "!", " (in)"]
    state = InProcessMcpMeshTool(
        capability="s",
        function_name="stream_state",
        registry=app.container.tools(),
        agent_id="me",
        endpoint="",
    )
    (whole,) = [chunk async for chunk in state.stream()]  # a tool that does not stream: its text once
    assert json.loads(whole).keys() == {"started", "closed", "yielded"}
    failing = InProcessMcpMeshTool(
        capability="f", function_name="chat_fail", registry=app.container.tools(), agent_id="me", endpoint=""
    )
    got: list[str] = []
    with pytest.raises(ToolExecutionError, match="boom mid-stream"):
        async for chunk in failing.stream(prompt="x"):
            got.append(chunk)
    assert got == ["one", "two", "three"]
    endless = InProcessMcpMeshTool(
        capability="e", function_name="endless", registry=app.container.tools(), agent_id="me", endpoint=""
    )
    before = stream_app.STATE["closed"]
    stream = endless.stream()
    async for _chunk in stream:
        break
    await stream.aclose()  # type: ignore[attr-defined]
    assert stream_app.STATE["closed"] == before + 1


def test_a_providers_stream_timeout_comes_from_its_registered_kwargs() -> None:
    slots = {"reader": ToolSlots("app.reader", ("chat", "other", "bad"))}
    entry = {"agent_id": "a", "endpoint": "http://h:1", "function_name": "chat", "capability": "chat"}
    answer = {
        "dependencies_resolved": {
            "reader": [
                {**entry, "kwargs": {"stream_type": "text", "stream_timeout": 12}},
                {**entry, "kwargs": {"stream_type": "text"}},
                {**entry, "kwargs": {"stream_timeout": "soon"}},
            ]
        }
    }
    resolved = parse_answer(answer, slots).dependencies
    timeouts = [resolved[f"app.reader:dep_{n}"].provider.stream_timeout for n in range(3)]  # type: ignore[union-attr]
    assert timeouts == [12.0, DEFAULT_STREAM_TIMEOUT, DEFAULT_STREAM_TIMEOUT]
    assert DEFAULT_STREAM_TIMEOUT == 300.0
