"""The proxy's one failover loop, on each path that uses it (a call, a stream), against real HTTP servers on
127.0.0.1: which provider is tried first and which next, what makes it try another (a refused connection,
a 503 with Retry-After, a timeout of an idempotent tool on a call only), that it tries at most two, and
that a provider seen down is skipped on the next call."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator

import httpx2
import pytest

from mesh_framework import ToolExecutionError
from mesh_framework.mesh.proxy import DownEndpoints, McpMeshToolProxy, Provider
from mesh_framework.mesh.transport import McpTransport
from mesh_framework.metrics import MeshMetrics

pytestmark = pytest.mark.timeout(30)


class StubProvider:
    """An MCP endpoint over HTTP/1.1 on an ephemeral port: `mode` "ok" answers each tools/call with a text
    result naming the stub, "hang" reads the request and never answers, "drain" answers 503 with
    Retry-After (an agent that is stopping). `calls` counts the tools/call requests it read."""

    def __init__(self, name: str, mode: str = "ok") -> None:
        self.name = name
        self.mode = mode
        self.calls = 0
        self.called = asyncio.Event()
        self._server: asyncio.Server | None = None
        self._connections: list[asyncio.StreamWriter] = []

    async def start(self) -> StubProvider:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    @property
    def endpoint(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"

    async def close(self) -> None:
        # every connection, the client's idle keep-alive ones too: from Python 3.12 `wait_closed` waits
        # for them all
        for writer in self._connections:
            writer.close()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._connections.append(writer)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                request = json.loads(await reader.readexactly(length))
                self.calls += 1
                self.called.set()
                if self.mode == "hang":
                    return
                if self.mode == "drain":
                    writer.write(
                        b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n"
                    )
                    await writer.drain()
                    continue
                text = f"{self.name}:{request['params']['name']}"
                body = json.dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": request["id"],
                        "result": {"content": [{"type": "text", "text": text}], "isError": False},
                    }
                ).encode()
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    + f"Content-Length: {len(body)}\r\n\r\n".encode()
                    + body
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()


def refused_endpoint() -> str:
    """An endpoint nothing listens on: its port was bound, then released."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


@pytest.fixture
async def transport() -> AsyncIterator[McpTransport]:
    async with httpx2.AsyncClient(trust_env=False) as http:
        yield McpTransport(http, client_name="test", client_version="1")


@pytest.fixture
async def stubs() -> AsyncIterator[list[StubProvider]]:
    started: list[StubProvider] = []
    yield started
    for stub in started:
        await stub.close()


async def stub(stubs: list[StubProvider], name: str, mode: str = "ok") -> StubProvider:
    started = await StubProvider(name, mode).start()
    stubs.append(started)
    return started


def provider(
    endpoint: str, name: str, *, idempotent: bool = False, stream_timeout: float = 300.0
) -> Provider:
    return Provider(name, endpoint, "echo", idempotent=idempotent, stream_timeout=stream_timeout)


def proxy(
    transport: McpTransport, first: Provider, *alternates: Provider, timeout: float | None = None
) -> McpMeshToolProxy:
    made = McpMeshToolProxy(
        transport,
        capability="echo",
        provider=first,
        alternates=alternates,
        down=DownEndpoints(60),
        timeout=timeout,
    )
    made.observer = MeshMetrics()
    return made


def failovers(made: McpMeshToolProxy, endpoint: str) -> float | None:
    labels = {"capability": "echo", "endpoint": endpoint}
    return made.observer.registry.get_sample_value("mesh_proxy_failovers_total", labels)


async def text_of(made: McpMeshToolProxy, path: str) -> str:
    """One call of the proxy's `echo` by `path`: "call" (call_tool) or "stream" (its chunks joined)."""
    if path == "call":
        return str(await made.call_tool("echo", {}))
    return "".join([chunk async for chunk in made.stream_tool("echo", {})])


@pytest.mark.parametrize("path", ["call", "stream"])
async def test_a_refused_connection_goes_to_the_first_alternate_then_the_down_one_is_skipped(
    transport: McpTransport, stubs: list[StubProvider], path: str
) -> None:
    dead = refused_endpoint()
    second, third = await stub(stubs, "second"), await stub(stubs, "third")
    made = proxy(
        transport,
        provider(dead, "dead"),
        provider(second.endpoint, "second"),
        provider(third.endpoint, "third"),
    )
    assert await text_of(made, path) == "second:echo"
    assert (second.calls, third.calls) == (1, 0)  # the alternates in order: the first one took it
    assert failovers(made, dead) == 1.0
    # the refused endpoint is remembered as down: the next call goes straight to the next in order
    assert await text_of(made, path) == "second:echo"
    assert (second.calls, third.calls) == (2, 0)
    assert failovers(made, dead) == 1.0


@pytest.mark.parametrize("path", ["call", "stream"])
async def test_a_draining_provider_goes_to_the_alternate(
    transport: McpTransport, stubs: list[StubProvider], path: str
) -> None:
    draining, alive = await stub(stubs, "draining", "drain"), await stub(stubs, "alive")
    made = proxy(transport, provider(draining.endpoint, "draining"), provider(alive.endpoint, "alive"))
    assert await text_of(made, path) == "alive:echo"
    assert (draining.calls, alive.calls) == (1, 1)
    assert failovers(made, draining.endpoint) == 1.0


@pytest.mark.parametrize("path", ["call", "stream"])
async def test_at_most_two_providers_are_tried(
    transport: McpTransport, stubs: list[StubProvider], path: str
) -> None:
    first, second = refused_endpoint(), refused_endpoint()
    third = await stub(stubs, "third")
    made = proxy(
        transport, provider(first, "first"), provider(second, "second"), provider(third.endpoint, "third")
    )
    with pytest.raises(ToolExecutionError, match=f"{second}/mcp.*unreachable.*no other provider of 'echo'"):
        await text_of(made, path)
    assert third.calls == 0


@pytest.mark.parametrize("path", ["call", "stream"])
async def test_without_an_alternate_a_refusal_says_so(transport: McpTransport, path: str) -> None:
    made = proxy(transport, provider(refused_endpoint(), "only"))
    with pytest.raises(ToolExecutionError, match="unreachable.*no other provider of 'echo' is known"):
        await text_of(made, path)


async def test_a_call_that_timed_out_goes_to_the_alternate_only_for_an_idempotent_tool(
    transport: McpTransport, stubs: list[StubProvider]
) -> None:
    hung, alive = await stub(stubs, "hung", "hang"), await stub(stubs, "alive")
    idempotent = proxy(
        transport,
        provider(hung.endpoint, "hung", idempotent=True),
        provider(alive.endpoint, "alive", idempotent=True),
        timeout=0.2,
    )
    assert await idempotent.call_tool("echo", {}) == "alive:echo"
    assert (hung.calls, alive.calls) == (1, 1)
    # a tool not marked idempotent may have run: it is not repeated elsewhere
    plain = proxy(transport, provider(hung.endpoint, "hung"), provider(alive.endpoint, "alive"), timeout=0.2)
    with pytest.raises(ToolExecutionError, match="did not answer tools/call"):
        await plain.call_tool("echo", {})
    assert (hung.calls, alive.calls) == (2, 1)


async def test_a_stream_that_timed_out_is_not_repeated_even_for_an_idempotent_tool(
    transport: McpTransport, stubs: list[StubProvider]
) -> None:
    """A stream may have delivered chunks before it stalled: it is never repeated elsewhere."""
    hung, alive = await stub(stubs, "hung", "hang"), await stub(stubs, "alive")
    made = proxy(
        transport,
        provider(hung.endpoint, "hung", idempotent=True, stream_timeout=0.2),
        provider(alive.endpoint, "alive", idempotent=True),
    )
    with pytest.raises(ToolExecutionError, match="sent nothing for 0.2s"):
        await text_of(made, "stream")
    assert (hung.calls, alive.calls) == (1, 0)


async def test_a_call_with_another_function_name_at_the_alternate_asks_for_that_name(
    transport: McpTransport, stubs: list[StubProvider]
) -> None:
    alive = await stub(stubs, "alive")
    renamed = Provider("alive", alive.endpoint, "echo_v2")
    made = proxy(transport, provider(refused_endpoint(), "dead"), renamed)
    for path in ("call", "stream"):
        assert await text_of(made, path) == "alive:echo_v2"
