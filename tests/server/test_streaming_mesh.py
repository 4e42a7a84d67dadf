"""`Stream[str]` tools on real agent processes: the `mcp` SDK's client with a progress callback in both
eras, chunks written as they are yielded, a client that leaves mid-stream, and a chain of two agents
through the embedded registry (re-yielded chunks, cancellation across the hop, a consumer that stops)."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from mcp import Client
from opentelemetry import trace
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mesh_framework import MeshApplication, ToolExecutionError
from mesh_framework.mesh.proxy import DownEndpoints, McpMeshToolProxy, Provider
from mesh_framework.mesh.transport import McpTransport
from mesh_framework.metrics import MeshMetrics
from mesh_framework.testing import mesh_client
from mesh_framework.tracing import state, tracer_provider
from tests.agents import AgentProcess, loopback, run_agent, run_registry, wait_until
from tests.interop.mcp_mesh import free_port
from tests.mesh.test_mesh_integration import call, mesh_env
from tests.tcp_proxy import TcpProxy

pytestmark = pytest.mark.timeout(90)

ACCEPT = "application/json, text/event-stream"


@pytest.fixture(scope="module")
def streamer() -> Iterator[AgentProcess]:
    with run_agent("tests.apps.stream_app") as running:
        yield running


def progress_of(text: str) -> list[str]:
    messages = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]
    return [m["params"]["message"] for m in messages if m.get("method") == "notifications/progress"]


def stream_state(agent: AgentProcess) -> dict[str, int]:
    return dict(call(agent, "stream_state", {})["structuredContent"])


def read_then_leave(
    agent: AgentProcess, tool: str, arguments: dict[str, Any], chunks: int, *, timeout: float = 10
) -> list[str]:
    """Stream `tool` over a real connection, read `chunks` progress messages, then close the connection
    (`timeout` bounds each read)."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": {"progressToken": "t"}},
    }
    got: list[str] = []
    with (
        httpx2.Client(timeout=timeout, trust_env=False) as http,
        http.stream("POST", agent.mcp_url, json=body, headers={"Accept": ACCEPT}) as response,
    ):
        assert response.headers["content-type"] == "text/event-stream"
        for line in response.iter_lines():
            if line.startswith("data: "):
                got.append(json.loads(line[6:])["params"]["message"])
                if len(got) == chunks:
                    break
    return got


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
async def test_the_sdk_client_receives_each_chunk_through_its_progress_callback(
    streamer: AgentProcess, mode: str
) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    async with Client(streamer.mcp_url, mode=mode) as client:  # type: ignore[arg-type]
        result = await client.call_tool("chat", {"prompt": "sdk"}, progress_callback=on_progress)
        assert seen == [(0.0, None, "Hello"), (1.0, None, " "), (2.0, None, "world"), (3.0, None, "!"),
                        (4.0, None, " (sdk)")]  # fmt: skip
        assert result.is_error is False
        assert [c.text for c in result.content] == ["Hello world! (sdk)"]  # type: ignore[union-attr]
        assert result.structured_content is None
        seen.clear()
        failed = await client.call_tool("chat_fail", {"prompt": "sdk"}, progress_callback=on_progress)
        assert [m for _p, _t, m in seen] == ["one", "two", "three"]
        assert failed.is_error is True
        assert "boom mid-stream (sdk)" in failed.content[0].text  # type: ignore[union-attr]
        plain = await client.call_tool("chat", {"prompt": "none"})  # no callback: no token, buffered
        assert [c.text for c in plain.content] == ["Hello world! (none)"]  # type: ignore[union-attr]


def test_chunks_reach_the_client_as_they_are_yielded_and_leaving_stops_the_tool(
    streamer: AgentProcess,
) -> None:
    """An endless stream delivers its first chunks (nothing waits for the end), and closing the
    connection closes the tool's generator: its `finally` runs and no stream is left running."""
    assert read_then_leave(streamer, "endless", {"prefix": "x"}, 3) == ["x 0", "x 1", "x 2"]
    state = wait_until(lambda: (s := stream_state(streamer))["closed"] == s["started"] and s, timeout=10)
    assert state["started"] >= 1  # type: ignore[index]


async def test_dep_stream_over_http_raises_after_the_chunks_and_bounds_each_wait(
    streamer: AgentProcess,
) -> None:
    async with httpx2.AsyncClient(trust_env=False) as http:
        transport = McpTransport(http, client_name="test", client_version="1")

        def proxy(tool: str, stream_timeout: float = 300.0) -> McpMeshToolProxy:
            provider = Provider("streamer", streamer.base_url, tool, stream_timeout=stream_timeout)
            return McpMeshToolProxy(transport, capability=tool, provider=provider, down=DownEndpoints(5))

        assert [c async for c in proxy("chat").stream(prompt="p")] == ["Hello", " ", "world", "!", " (p)"]
        got: list[str] = []
        with pytest.raises(ToolExecutionError, match=r"boom mid-stream \(p\)"):
            async for chunk in proxy("chat_fail").stream(prompt="p"):
                got.append(chunk)
        assert got == ["one", "two", "three"]
        got.clear()
        with pytest.raises(ToolExecutionError, match="sent nothing for 0.5s"):
            async for chunk in proxy("stall", stream_timeout=0.5).stream(seconds=30):
                got.append(chunk)
        assert got == ["before"]
        (state,) = [c async for c in proxy("stream_state").stream()]  # a tool that does not stream: once
        assert set(json.loads(state)) == {"started", "closed", "yielded"}
        # a provider that refuses the connection: the stream goes to the alternate, and it is marked down
        down = DownEndpoints(5)
        dead = Provider("gone", f"http://127.0.0.1:{free_port()}", "chat")
        alive = Provider("streamer", streamer.base_url, "chat")
        failing_over = McpMeshToolProxy(
            transport, capability="chat", provider=dead, alternates=[alive], down=down
        )
        metrics = MeshMetrics()
        failing_over.observer = metrics
        assert [c async for c in failing_over.stream(prompt="f")] == ["Hello", " ", "world", "!", " (f)"]
        assert down.is_down(dead.endpoint)
        failovers = {"capability": "chat", "endpoint": dead.endpoint}  # counted as a call's failover is
        assert metrics.registry.get_sample_value("mesh_proxy_failovers_total", failovers) == 1.0
        with pytest.raises(ToolExecutionError, match="unreachable.*no other provider of 'chat'"):
            _ = [
                c
                async for c in McpMeshToolProxy(
                    transport, capability="chat", provider=dead, down=down
                ).stream()
            ]


def test_a_chunk_is_written_when_it_is_yielded_not_when_the_stream_ends(streamer: AgentProcess) -> None:
    """`stall` yields one chunk and then sleeps a minute: the chunk (and the response head before it)
    must reach the client during that minute, through every layer down to the socket."""
    assert read_then_leave(streamer, "stall", {"seconds": 60}, 1, timeout=5) == ["before"]


async def test_streams_one_after_another_reuse_one_connection(streamer: AgentProcess) -> None:
    """A stream is read to its end once the result is in, so its connection goes back to the pool."""
    tcp = TcpProxy(streamer.port)
    try:
        async with httpx2.AsyncClient(trust_env=False) as http:
            transport = McpTransport(http, client_name="test", client_version="1")
            provider = Provider("streamer", f"http://127.0.0.1:{tcp.port}", "chat")
            chat = McpMeshToolProxy(transport, capability="chat", provider=provider, down=DownEndpoints(5))
            for n in range(3):
                assert [c async for c in chat.stream(prompt=str(n))][-1] == f" ({n})"
        assert len(tcp._sockets) == 2  # one connection: its client side and its upstream side
    finally:
        tcp.close()


async def test_a_traced_stream_holds_its_client_span_off_the_callers_context(streamer: AgentProcess) -> None:
    """With tracing on, the span of a streamed call is recorded, but between chunks the caller's code does
    not run inside it (the HTTP stream lives in a task of its own), and leaving early ends it."""
    traced = {
        "MESH_TRACING__ENABLED": "true",
        "MESH_TRACING__EXPORTER": "none",
        "MESH_REGISTRY__ENABLED": "false",
    }
    try:
        async with (
            mesh_client(MeshApplication.load("tests.apps.stream_app", environ=traced)),
            httpx2.AsyncClient(trust_env=False) as http,
        ):
            exporter = InMemorySpanExporter()
            tracer_provider().add_span_processor(SimpleSpanProcessor(exporter))
            transport = McpTransport(http, client_name="test", client_version="1")
            for tool, arguments, take in [("chat", {"prompt": "t"}, 5), ("endless", {}, 2)]:
                provider = Provider("streamer", streamer.base_url, tool)
                proxy = McpMeshToolProxy(transport, capability=tool, provider=provider, down=DownEndpoints(5))
                stream = proxy.stream(**arguments)
                seen = 0
                async for _chunk in stream:
                    assert not trace.get_current_span().get_span_context().is_valid
                    seen += 1
                    if seen == take:
                        break
                await stream.aclose()  # type: ignore[attr-defined]
            names = [span.name for span in exporter.get_finished_spans()]
            assert names == ["tools/call chat", "tools/call endless"]
    finally:
        state.tracer = state.provider = None
        state.log_calls = False


def test_a_stopping_agent_ends_its_open_streams_with_an_error_result() -> None:
    """SIGTERM while a stream waits for its next chunk: once `server.shutdown_grace` has passed, the
    client gets the chunks so far and an error result saying the agent stopped, and the agent exits
    without a cancelled request's traceback."""
    with run_agent("tests.apps.stream_app", env={"MESH_SERVER__SHUTDOWN_GRACE": "1"}) as agent:
        body = {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "stall", "arguments": {"seconds": 60}, "_meta": {"progressToken": "t"}},
        }
        messages: list[dict[str, Any]] = []
        with (
            httpx2.Client(timeout=20, trust_env=False) as http,
            http.stream("POST", agent.mcp_url, json=body, headers={"Accept": ACCEPT}) as response,
        ):
            for line in response.iter_lines():
                if line.startswith("data: "):
                    messages.append(json.loads(line[6:]))
                    if len(messages) == 1:
                        agent.process.send_signal(signal.SIGTERM)
        assert agent.process.wait(timeout=20) == 0
    assert [m["params"]["message"] for m in messages[:-1]] == ["before"]
    assert messages[-1]["result"] == {
        "content": [
            {"type": "text", "text": "Tool 'stall' stopped after 1 chunk(s): the agent is shutting down"}
        ],
        "isError": True,
    }
    assert "Exception in ASGI application" not in agent.text()


@pytest.fixture(scope="module")
def chain() -> Iterator[tuple[AgentProcess, AgentProcess]]:
    with run_registry(0, "--timeout", "3") as registry:
        env = mesh_env(registry.base_url)
        with (
            run_agent("tests.apps.stream_app", env=env) as producer,
            run_agent("tests.apps.stream_relay_app", env=env) as relay,
        ):
            for tool, arguments in [
                ("relay", {"prompt": "up"}),
                ("relay_stall", {"seconds": 0}),
                ("relay_stall_briefly", {"seconds": 0}),
            ]:
                wait_until(lambda: not call(relay, tool, arguments)["isError"], timeout=20)  # noqa: B023
            yield producer, relay


async def test_a_stream_tool_re_yields_a_dependency_stream_chunk_by_chunk(
    chain: tuple[AgentProcess, AgentProcess],
) -> None:
    _producer, relay = chain
    seen: list[str | None] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(message)

    async with Client(relay.mcp_url, mode="2026-07-28") as client:
        result = await client.call_tool("relay", {"prompt": "hop"}, progress_callback=on_progress)
    assert seen == ["Hello", " ", "world", "!", " (hop)"]  # one frame per upstream yield
    assert [c.text for c in result.content] == ["Hello world! (hop)"]  # type: ignore[union-attr]


def test_a_two_hop_stream_adds_no_buffering(chain: tuple[AgentProcess, AgentProcess]) -> None:
    _producer, relay = chain
    assert read_then_leave(relay, "relay_stall", {"seconds": 60}, 1, timeout=5) == ["before"]


def test_a_consumer_waits_for_each_chunk_as_long_as_the_provider_registered(
    chain: tuple[AgentProcess, AgentProcess],
) -> None:
    """`stall_briefly` registers `stream_timeout=0.5`; the registry hands it to the consumer, whose
    `dep.stream()` gives up 0.5 s after the last chunk: the relay's stream ends with that error."""
    _producer, relay = chain
    body = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {
            "name": "relay_stall_briefly",
            "arguments": {"seconds": 30},
            "_meta": {"progressToken": 1},
        },
    }
    response = loopback.post(relay.mcp_url, json=body, headers={"Accept": ACCEPT}, timeout=10)
    assert progress_of(response.text) == ["before"]
    final = json.loads([line for line in response.text.splitlines() if line.startswith("data: ")][-1][6:])
    assert final["result"]["isError"] is True
    assert "sent nothing for 0.5s during a streamed tools/call" in final["result"]["content"][0]["text"]


def test_a_client_leaving_a_two_hop_stream_stops_the_producer(
    chain: tuple[AgentProcess, AgentProcess],
) -> None:
    producer, relay = chain
    before = stream_state(producer)
    assert read_then_leave(relay, "relay_endless", {}, 3) == ["far 0", "far 1", "far 2"]
    state = wait_until(
        lambda: (
            (s := stream_state(producer))["started"] > before["started"] and s["closed"] == s["started"] and s
        ),
        timeout=10,
    )
    assert state["closed"] == before["closed"] + 1  # type: ignore[index]


def test_a_consumer_that_stops_reading_cancels_the_upstream_stream(
    chain: tuple[AgentProcess, AgentProcess],
) -> None:
    producer, relay = chain
    before = stream_state(producer)
    result = call(relay, "first_tick", {})
    assert result["content"][0]["text"] == "first 0"
    state = wait_until(
        lambda: (s := stream_state(producer))["closed"] == before["closed"] + 1 and s, timeout=10
    )
    assert state["started"] == state["closed"]  # type: ignore[index]
