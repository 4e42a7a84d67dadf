"""The proxies' direct HTTP client (mesh/direct_http.py) against real servers on loopback: keep-alive reuse,
the transport's answers and errors as over httpx2, the stale-connection retry, and the fallback to httpx2."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import warnings
from collections.abc import AsyncIterator
from typing import ClassVar

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from mesh_framework.config.settings import MeshSettings
from mesh_framework.deadline import Expired
from mesh_framework.mesh.direct_http import ConnectFailed, ConnectionBroken, DirectHttp
from mesh_framework.mesh.proxy import DownEndpoints, McpMeshToolProxy, Provider
from mesh_framework.mesh.proxy_factory import McpMeshToolProxyFactory
from mesh_framework.mesh.transport import LEGACY, McpTransport, ProviderUnreachable, RemoteError
from mesh_framework.propagation import propagating
from tests.mesh.test_keepalive import _serve
from tests.mesh.test_transport import Peer
from tests.server.test_asyncio_network import _read_request, _server

pytestmark = pytest.mark.timeout(60)

_OK = b'{"jsonrpc":"2.0","id":1,"result":{}}'


async def _slow(request: Request) -> Response:
    """No answer for 5 s, or none at all: the client that gave up hanging up (`http.disconnect`) ends it."""
    await request.body()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(request.receive(), 5)
    return JSONResponse({})


async def _stopping(request: Request) -> Response:
    return Response("shutting down", status_code=503, headers={"retry-after": "1"})


async def _echo_headers(request: Request) -> Response:
    body = await request.json()
    headers = {k: v for k, v in request.headers.items() if k.startswith("x-")}
    result = {"content": [], "structuredContent": headers, "isError": False}
    return JSONResponse({"jsonrpc": "2.0", "id": body["id"], "result": result})


@pytest.fixture
async def peer_url() -> AsyncIterator[tuple[Peer, str]]:
    peer = Peer(accepts={None}, plain_400=True, sse=True)  # an older server answering event streams
    routes = [
        Route("/mcp", peer.endpoint, methods=["POST"]),
        Route("/slow/mcp", _slow, methods=["POST"]),
        Route("/stopping/mcp", _stopping, methods=["POST"]),
        Route("/echo/mcp", _echo_headers, methods=["POST"]),
    ]
    async for url in _serve(Starlette(routes=routes), 5.0):
        yield peer, url


def _transport(http: httpx2.AsyncClient, direct: DirectHttp) -> McpTransport:
    return McpTransport(http, client_name="t", client_version="1", timeout=30.0, direct=direct)


async def test_calls_reuse_one_connection_and_negotiate_as_over_httpx(peer_url: tuple[Peer, str]) -> None:
    """A modern request refused with a plain 400 falls back to legacy, SSE answers are read, and three
    calls share one kept-alive connection; httpx2 sends nothing."""
    peer, url = peer_url
    direct = DirectHttp()
    sent_by_httpx: list[httpx2.Request] = []

    async def count(request: httpx2.Request) -> None:
        sent_by_httpx.append(request)

    async with httpx2.AsyncClient(event_hooks={"request": [count]}) as http:
        transport = _transport(http, direct)
        for _ in range(3):
            result = await transport.request(f"{url}/mcp", "tools/call", {"name": "add", "arguments": {}})
            assert result["structuredContent"] == {"result": 5}
    assert transport.era(f"{url}/mcp") == LEGACY
    assert [version for version, _ in peer.seen] == ["2026-07-28", None, None, None]
    assert sent_by_httpx == []
    idle = list(direct._idle.values())
    assert len(idle) == 1 and len(idle[0]) == 1  # one connection, back in the pool
    direct.close()


async def test_errors_map_as_over_httpx(peer_url: tuple[Peer, str]) -> None:
    _, url = peer_url
    direct = DirectHttp()
    async with httpx2.AsyncClient() as http:
        transport = _transport(http, direct)
        with pytest.raises(RemoteError) as timed_out:
            await transport.request(f"{url}/slow/mcp", "tools/call", {"name": "x"}, timeout=0.2)
        assert timed_out.value.timed_out
        with pytest.raises(ProviderUnreachable, match="shutting down"):
            await transport.request(f"{url}/stopping/mcp", "tools/call", {"name": "x"})
    # the chosen provider's port is closed: unreachable, so the proxy fails over to the alternate
    async with httpx2.AsyncClient() as http:
        closed = DownEndpoints(10)
        proxy = McpMeshToolProxy(
            _transport(http, direct),
            capability="add",
            provider=Provider("gone", "http://127.0.0.1:1", "add"),
            alternates=[Provider("here", url, "add")],
            down=closed,
        )
        assert await proxy(a=1, b=2) == 5
        assert closed.is_down("http://127.0.0.1:1")
    direct.close()


async def test_connect_failure_is_provider_unreachable() -> None:
    direct = DirectHttp()
    async with httpx2.AsyncClient() as http:
        with pytest.raises(ProviderUnreachable):
            await _transport(http, direct).request("http://127.0.0.1:1/mcp", "tools/call", {"name": "x"})
    with pytest.raises(ConnectFailed):
        await direct.post("127.0.0.1", 1, b"POST / HTTP/1.1\r\n\r\n", timeout=5.0)


async def test_header_values_that_are_not_plain_text_go_through_httpx(peer_url: tuple[Peer, str]) -> None:
    """A propagated value with CR/LF cannot split the request head: the direct client leaves the request
    to httpx2, which refuses it; plain values travel on the direct path."""
    _, url = peer_url
    direct = DirectHttp()
    sent_by_httpx: list[httpx2.Request] = []

    async def count(request: httpx2.Request) -> None:
        sent_by_httpx.append(request)

    async with httpx2.AsyncClient(event_hooks={"request": [count]}) as http:
        transport = _transport(http, direct)
        with propagating({"x-tenant": "acme"}):
            result = await transport.request(f"{url}/echo/mcp", "tools/call", {"name": "x"})
        assert result["structuredContent"]["x-tenant"] == "acme"
        assert sent_by_httpx == []
        with propagating({"x-tenant": "acme\r\nx-injected: 1"}), pytest.raises(RemoteError, match="Illegal"):
            await transport.request(f"{url}/echo/mcp", "tools/call", {"name": "x"})
        assert len(sent_by_httpx) == 1  # httpx2 got it, and refused to send it
    direct.close()


class _OneAnswerPerConnection(asyncio.Protocol):
    """Answers the first request of a connection, then closes it when the next one arrives unanswered:
    what a reused connection meets when the server closed it idle at the same moment."""

    connections = 0
    open: ClassVar[set[asyncio.Transport]] = set()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.answered = False
        type(self).connections += 1
        type(self).open.add(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        type(self).open.discard(self.transport)

    def data_received(self, data: bytes) -> None:
        if self.answered:
            self.transport.close()
            return
        self.answered = True
        self.transport.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(_OK)
            + _OK
        )


@pytest.fixture
async def one_answer_server() -> AsyncIterator[int]:
    _OneAnswerPerConnection.connections = 0
    server = await asyncio.get_running_loop().create_server(_OneAnswerPerConnection, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        # Python 3.12's wait_closed waits for every connection: the server closes what a client left open.
        for transport in list(_OneAnswerPerConnection.open):
            transport.abort()
        await server.wait_closed()


async def test_a_stale_connection_is_retried_only_for_an_idempotent_request(one_answer_server: int) -> None:
    port = one_answer_server
    request = b"POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}"
    direct = DirectHttp()
    assert (await direct.post("127.0.0.1", port, request, timeout=5.0)).body == _OK
    answer = await direct.post("127.0.0.1", port, request, timeout=5.0, idempotent=True)
    assert answer.status == 200 and _OneAnswerPerConnection.connections == 2  # sent again, fresh
    with pytest.raises(ConnectionBroken) as broken:
        await direct.post("127.0.0.1", port, request, timeout=5.0)  # a tool call: never repeated
    assert broken.value.stale
    assert _OneAnswerPerConnection.connections == 2
    direct.close()


async def test_expired_connections_are_not_reused(one_answer_server: int) -> None:
    port = one_answer_server
    request = b"POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}"
    direct = DirectHttp(keepalive_expiry=0.05)
    await direct.post("127.0.0.1", port, request, timeout=5.0)
    idle = direct._idle[("127.0.0.1", port)][0]
    idle.idle_since -= 1.0  # idle longer than keepalive_expiry
    answer = await direct.post("127.0.0.1", port, request, timeout=5.0)  # not idempotent, yet fine
    assert answer.status == 200 and _OneAnswerPerConnection.connections == 2
    direct.close()


async def test_a_deadline_bounds_the_whole_exchange_and_drops_the_connection(
    peer_url: tuple[Peer, str],
) -> None:
    _, url = peer_url
    port = int(url.rsplit(":", 1)[1])
    direct = DirectHttp()
    request = b"POST /slow/mcp HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}"
    with pytest.raises(Expired):
        await direct.post("127.0.0.1", port, request, timeout=0.1)
    assert not direct._idle.get(("127.0.0.1", port))  # its state is unknown: never reused
    direct.close()


def test_the_factory_gives_its_proxies_the_direct_client() -> None:
    factory = McpMeshToolProxyFactory(MeshSettings())
    assert isinstance(factory.transport.direct, DirectHttp)


class _AnswerUntilClose(asyncio.Protocol):
    """Answers without Content-Length or chunking: the body ends when the connection closes."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.transport.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n"
        )
        self.transport.write(_OK)
        self.transport.close()


async def test_an_answer_delimited_by_the_close_is_read_whole() -> None:
    server = await asyncio.get_running_loop().create_server(_AnswerUntilClose, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    direct = DirectHttp()
    try:
        answer = await direct.post("127.0.0.1", port, b"POST / HTTP/1.1\r\nhost: x\r\n\r\n", timeout=5.0)
        assert (answer.status, answer.body) == (200, _OK)
        assert not direct._idle.get(("127.0.0.1", port))  # closed: not kept
    finally:
        direct.close()
        server.close()
        await server.wait_closed()


async def test_a_connection_of_a_finished_event_loop_is_not_reused(one_answer_server: int) -> None:
    """The same client used from one event loop after another (a sync test client runs one per call)
    opens a new connection instead of writing into one of a closed loop."""
    port = one_answer_server
    request = b"POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}"
    direct = DirectHttp()

    def call_on_a_new_loop() -> int:
        return asyncio.run(direct.post("127.0.0.1", port, request, timeout=5.0)).status

    assert await asyncio.to_thread(call_on_a_new_loop) == 200
    assert await asyncio.to_thread(call_on_a_new_loop) == 200
    assert _OneAnswerPerConnection.connections == 2
    direct.close()


class _KeptAlive:
    """A keep-alive server (an asyncio stream server, as in test_asyncio_network) that answers `_OK` to each
    request and records each connection's end."""

    def __init__(self) -> None:
        self.connections = 0
        self.ended = 0
        self.an_end = asyncio.Event()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        while True:
            try:
                await _read_request(reader)
            except (asyncio.IncompleteReadError, ConnectionError):
                break
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(_OK)
                + _OK
            )
            await writer.drain()
        self.ended += 1
        self.an_end.set()
        writer.close()

    async def next_end(self) -> None:
        await self.an_end.wait()
        self.an_end.clear()


@pytest.fixture
async def kept_alive() -> AsyncIterator[tuple[_KeptAlive, int]]:
    server = _KeptAlive()
    async for url in _server(server.handle):
        yield server, int(url.rsplit(":", 1)[1])


_REQUEST = b"POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}"


async def test_a_finished_event_loop_leaves_no_connection_open(kept_alive: tuple[_KeptAlive, int]) -> None:
    """A client used in one `asyncio.run` and then another: the first loop's connection is closed as that
    loop ends (the server sees it end, nothing is left for the garbage collector to warn about), and the
    second call opens its own."""
    server, port = kept_alive
    direct = DirectHttp()

    def call_in_asyncio_run() -> int:
        return asyncio.run(direct.post("127.0.0.1", port, _REQUEST, timeout=5.0)).status

    gc.collect()  # what tests before this one left behind warns now, not inside the window below
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        assert await asyncio.to_thread(call_in_asyncio_run) == 200
        await server.next_end()  # closed when its loop ended, not when a later call met it
        assert server.ended == 1
        assert await asyncio.to_thread(call_in_asyncio_run) == 200
        await server.next_end()
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []
    assert (server.connections, server.ended) == (2, 2)
    assert not any(direct._idle.values())
    direct.close()


async def test_a_connection_of_a_loop_closed_without_shutting_down_is_ended_when_met(
    kept_alive: tuple[_KeptAlive, int],
) -> None:
    """A loop closed bare (no `shutdown_asyncgens`) could not close its connection: the next call, on
    another loop, does not reuse it and ends it without the closed loop (the server sees it end)."""
    server, port = kept_alive
    direct = DirectHttp()

    def call_and_close_the_loop_bare() -> int:
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(direct.post("127.0.0.1", port, _REQUEST, timeout=5.0)).status
        finally:
            loop.close()

    def call_in_asyncio_run() -> int:
        return asyncio.run(direct.post("127.0.0.1", port, _REQUEST, timeout=5.0)).status

    with warnings.catch_warnings():
        # the bare-closed loop's transport is only collected later, with its own warning: not this test's
        warnings.simplefilter("ignore", ResourceWarning)
        assert await asyncio.to_thread(call_and_close_the_loop_bare) == 200
        assert server.ended == 0  # still open: its loop never ran its closing
        assert await asyncio.to_thread(call_in_asyncio_run) == 200
        await server.next_end()
        assert server.connections == 2 and server.ended >= 1
        gc.collect()
    direct.close()


async def test_closing_the_factory_closes_the_direct_pool(kept_alive: tuple[_KeptAlive, int]) -> None:
    server, port = kept_alive
    factory = McpMeshToolProxyFactory(MeshSettings())
    direct = factory.transport.direct
    assert direct is not None
    assert (await direct.post("127.0.0.1", port, _REQUEST, timeout=5.0)).status == 200
    assert server.ended == 0  # kept alive
    await factory.aclose()
    await server.next_end()
    assert server.ended == 1 and not any(direct._idle.values())
