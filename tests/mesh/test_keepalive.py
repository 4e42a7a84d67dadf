"""Keep-alive races: a client reusing a connection the server closes at the same moment.

Found with the starter app: heartbeats every 5 s against uvicorn's 5 s keep-alive logged
`heartbeat failed (... RemoteProtocolError: Server disconnected ...)` every 20-30 s. These tests run the
real heartbeat and registry against a server whose keep-alive equals the heartbeat interval, scaled down
so enough heartbeats cross the server's close in a few seconds.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import httpx2
import pytest
import uvicorn
from starlette.applications import Starlette

from mesh_framework.application.agent_server import uvicorn_server
from mesh_framework.config.settings import MeshSettings
from mesh_framework.mesh.heartbeat import Heartbeat, RegistryClient, RegistryError
from mesh_framework.mesh.http_pool import IDEMPOTENT, build_http_client
from mesh_framework.registry.registry_app import build_registry_app
from mesh_framework.registry.store import RegistryStore
from mesh_framework.serving import KEEP_ALIVE_TIMEOUT, UvicornServer, bind_socket
from tests.registry.test_registry import ADDER

KEEP_ALIVE = 0.3  # the server's idle timeout; the client comes back just as it expires
ROUNDS = 18


async def _serve(app: Starlette, keep_alive: float) -> AsyncIterator[str]:
    sock = bind_socket("127.0.0.1", 0)
    config = uvicorn.Config(
        app, log_config=None, access_log=False, lifespan="on", timeout_keep_alive=keep_alive
    )
    server = UvicornServer(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    for _ in range(500):
        if server.started or task.done():
            break
        await asyncio.sleep(0.01)
    assert server.started
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        await task
        sock.close()


@pytest.fixture
async def short_keep_alive_registry() -> AsyncIterator[tuple[str, RegistryStore]]:
    store = RegistryStore(None)
    async for url in _serve(build_registry_app(store), KEEP_ALIVE):
        yield url, store
    store.close()


async def test_registry_calls_survive_a_registry_closing_idle_connections(
    short_keep_alive_registry: tuple[str, RegistryStore], caplog: pytest.LogCaptureFixture
) -> None:
    """The heartbeat's calls (POST, then HEAD every interval) paced to arrive as the server's keep-alive
    expires, through a pool that keeps connections longer than the server: every call succeeds.
    (Without the retry, about half of them fail here with RemoteProtocolError or ReadError.)"""
    caplog.set_level(logging.DEBUG, logger="mesh_framework.mesh")
    url, _ = short_keep_alive_registry
    async with build_http_client(keepalive_expiry=30.0) as http:
        client = RegistryClient(http, url, timeout=5.0)
        await client.register(dict(ADDER))
        statuses: list[int] = []
        for round_ in range(ROUNDS):
            await asyncio.sleep(KEEP_ALIVE - 0.0005 * (1 + round_ % 6))  # across the race window
            if round_ % 4 == 3:
                answer = await client.register(dict(ADDER))  # a POST marked idempotent
                statuses.append(200 if answer.get("status") == "success" else 0)
            else:
                statuses.append(await client.check("adder-0001"))
    assert statuses == [200] * ROUNDS
    retried = [r for r in caplog.records if "met a closed connection" in r.getMessage()]
    assert retried, "the race was not exercised: no request met a connection the server had closed"


async def test_heartbeat_at_the_keep_alive_interval_registers_once(
    short_keep_alive_registry: tuple[str, RegistryStore], caplog: pytest.LogCaptureFixture
) -> None:
    """The heartbeat itself, its interval equal to the server's keep-alive: no failure, one registration."""
    caplog.set_level(logging.INFO, logger="mesh_framework.mesh")
    url, _ = short_keep_alive_registry
    answers: list[dict[str, object]] = []
    async with build_http_client(keepalive_expiry=30.0) as http:
        heartbeat = Heartbeat(
            RegistryClient(http, url, timeout=5.0), dict(ADDER), interval=KEEP_ALIVE, on_answer=answers.append
        )
        heartbeat.start()
        try:
            for _ in range(ROUNDS // 2):
                await asyncio.sleep(KEEP_ALIVE)
        finally:
            await heartbeat.stop(unregister=False)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert len(answers) == 1, "the agent registered more than once"


class _ClosingServer:
    """A TCP server that reads one request and closes without answering; it counts requests."""

    def __init__(self) -> None:
        self.requests = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            (
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            ),
            0,
        )
        await reader.readexactly(length)
        self.requests += 1
        writer.close()


async def test_only_idempotent_requests_are_repeated() -> None:
    closing = _ClosingServer()
    server = await asyncio.start_server(closing.handle, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/x"
    try:
        async with build_http_client() as http:
            with pytest.raises(httpx2.RemoteProtocolError):
                await http.post(url, content=b"{}")
            assert closing.requests == 1
            with pytest.raises(httpx2.RemoteProtocolError):
                await http.head(url)
            assert closing.requests == 3
            with pytest.raises(httpx2.RemoteProtocolError):
                await http.post(url, content=b"{}", extensions=IDEMPOTENT)
            assert closing.requests == 5
    finally:
        server.close()
        await server.wait_closed()


async def test_registry_client_reports_a_peer_that_never_answers() -> None:
    closing = _ClosingServer()
    server = await asyncio.start_server(closing.handle, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    try:
        async with build_http_client() as http:
            with pytest.raises(RegistryError, match="RemoteProtocolError"):
                await RegistryClient(http, url, timeout=5.0).check("adder-0001")
    finally:
        server.close()
        await server.wait_closed()


def test_servers_outlast_the_clients_pool_and_the_heartbeat() -> None:
    settings = MeshSettings()
    agent = uvicorn_server(Starlette(), settings).config
    assert agent.timeout_keep_alive == settings.server.keep_alive_timeout
    for server_keep_alive in (agent.timeout_keep_alive, KEEP_ALIVE_TIMEOUT):
        assert server_keep_alive > settings.client.keepalive_expiry
        assert server_keep_alive > settings.registry.heartbeat_interval
