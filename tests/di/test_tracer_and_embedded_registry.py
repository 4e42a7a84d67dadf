"""Tracing and the embedded registry are auto-configurations on the core's extension points: the core
calls the process's `observation.Tracer` around every call (the tracing feature's when the agent traces,
logs JSON or joins a registry; an app's own `Tracer` bean instead; else the no-op), and the mesh runtime
asks the `EmbeddedRegistry` bean for the registry to join when no registry URL is set (the registry
feature's, which runs one in the agent's process; an app's own instead; none when a URL is set or the
feature is excluded: the agent then joins whatever registry answers on the port)."""

from __future__ import annotations

import asyncio
import gc
import json
import socket
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from mesh_framework import MeshApplication, observation
from mesh_framework.cli.beans_command import bean_report
from mesh_framework.observation import Tracer
from mesh_framework.registry.in_process import InProcessRegistry
from mesh_framework.registry.registry_server import RegistryServer
from mesh_framework.testing.client import SyncMeshClient
from mesh_framework.tracing import SpanTracer
from tests.agents import loopback

pytestmark = pytest.mark.timeout(60)

STEP = 15.0  # seconds an awaited event may take on a busy machine

OWN_TRACER = """
from mesh_framework import component, mesh_agent, mesh_tool
from mesh_framework.observation import NOOP, Tracer

SEEN = []


@mesh_agent(name="own-tracer")
class OwnTracer:
    pass


@component
class Recording(Tracer):
    def incoming_call(self, tool, rpc_id, params, raw_headers, *, trace_headers=True):
        SEEN.append(("call", tool))
        return NOOP

    def record_result(self, result):
        SEEN.append(("result", result.get("isError", False)))


@mesh_tool(capability="add")
def add(a: int, b: int) -> int:
    return a + b
"""

OWN_REGISTRY = """
from mesh_framework import component, mesh_agent, mesh_tool
from mesh_framework.extension import EmbeddedRegistry
from mesh_framework.registry.registry_server import RegistryServer

ASKED = []


@mesh_agent(name="own-registry")
class OwnRegistry:
    pass


@component
class Private(EmbeddedRegistry):
    def __init__(self) -> None:
        self.server = None

    async def join(self, http):
        ASKED.append("join")
        self.server = RegistryServer("127.0.0.1", 0, timeout=60)
        await self.server.start()
        return self.server.url

    async def stop(self):
        ASKED.append("stop")
        await self.server.stop()


@mesh_tool(capability="add")
def add(a: int, b: int) -> int:
    return a + b
"""


SERVING_FIRST = """
import asyncio
import socket

from mesh_framework import component, mesh_agent, mesh_tool
from mesh_framework.extension import EmbeddedRegistry

CLIENT = []  # the client that sent tools/list before the agent listened
ANSWERED = []  # whether it had its answer when the agent asked for the registry to join
JOINED = asyncio.Event()


@mesh_agent(name="serving-first")
class ServingFirst:
    pass


@component
class Watching(EmbeddedRegistry):
    async def join(self, http):
        try:
            ANSWERED.append(bool(CLIENT[0].recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)))
        except BlockingIOError:
            ANSWERED.append(False)
        JOINED.set()
        return "http://127.0.0.1:9"


@mesh_tool(capability="add")
def add(a: int, b: int) -> int:
    return a + b
"""


def _app_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, source: str) -> None:
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))


@pytest.fixture
def own_tracer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MeshApplication]:
    _app_module(tmp_path, monkeypatch, "own_tracer_app", OWN_TRACER)
    kept = observation.tracer
    cli = {"registry.enabled": False, "tracing.enabled": True, "tracing.exporter": "none"}
    yield MeshApplication.load("own_tracer_app", cli=cli, environ={})
    observation.install(kept)
    sys.modules.pop("own_tracer_app", None)


@pytest.fixture
def kept_tracer() -> Iterator[None]:
    kept = observation.tracer
    yield
    observation.install(kept)


def test_an_app_s_tracer_replaces_the_framework_s_and_sees_every_call_served(
    own_tracer: MeshApplication,
) -> None:
    report = {b["name"]: b for b in bean_report(own_tracer)["beans"]}
    assert report["span_tracer"]["defined"] is False
    assert report["span_tracer"]["conditions"][-1]["reason"] == "found bean 'recording' of type Tracer"
    client = SyncMeshClient(own_tracer)
    try:
        assert client.call_ok("add", {"a": 2, "b": 3}) == 5
        assert type(observation.tracer).__name__ == "Recording"  # installed when the app was built
    finally:
        client.close()
    seen = sys.modules["own_tracer_app"].SEEN
    assert seen == [("call", "add")]  # a result answered inline is on its scope, not record_result


@pytest.mark.parametrize(
    ("cli", "traced"),
    [
        ({"registry.enabled": False}, False),
        ({"registry.enabled": False, "tracing.enabled": True, "tracing.exporter": "none"}, True),
        ({"registry.enabled": False, "logging.format": "json"}, True),
        ({"registry.enabled": True}, True),  # the console gathers spans of an agent in a registry
        (
            {"tracing.enabled": True, "tracing.exporter": "none", "auto_configuration.exclude": ["tracing"]},
            False,
        ),
    ],
)
def test_the_tracing_feature_traces_an_agent_that_traces_logs_json_or_joins_a_registry(
    cli: dict[str, object], traced: bool, kept_tracer: None
) -> None:
    app = MeshApplication.load("starter_app.calculator", cli=cli, environ={})
    app.build()
    assert type(observation.tracer) is (SpanTracer if traced else Tracer)


def test_an_agent_without_a_registry_url_runs_the_embedded_registry_and_stops_it() -> None:
    """`registry.embedded_port: 0`: a registry of its own, on a port of its own, started when the agent joins
    and stopped with it."""
    app = MeshApplication.load(
        "starter_app.calculator",
        environ={"MESH_REGISTRY__EMBEDDED_PORT": "0", "MCP_MESH_HEALTH_INTERVAL": "30"},
    )
    app.build()
    runtime = app.container.mesh_runtime()
    embedded = runtime.embedded_registry
    assert isinstance(embedded, InProcessRegistry) and embedded.running is None

    async def joined_then_stopped() -> str:
        try:
            await runtime.start(9100)
            assert runtime.heartbeat is not None and embedded.running is not None
            async with asyncio.timeout(STEP):
                await runtime.heartbeat.registered.wait()
            agents = [a.registration.agent_id for a in embedded.running.store.agents()]
            assert agents == [runtime.heartbeat.agent_id]
            return embedded.running.url
        finally:
            await runtime.stop()

    url = asyncio.run(joined_then_stopped())
    assert embedded.running is None
    with pytest.raises(httpx2.ConnectError):  # stopped with the agent
        loopback.get(url + "/health", timeout=5)


def test_an_app_s_embedded_registry_replaces_the_framework_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _app_module(tmp_path, monkeypatch, "own_registry_app", OWN_REGISTRY)
    try:
        app = MeshApplication.load("own_registry_app", environ={"MCP_MESH_HEALTH_INTERVAL": "30"})
        report = {b["name"]: b for b in bean_report(app)["beans"]}
        assert report["embedded_registry"]["defined"] is False
        app.build()
        runtime = app.container.mesh_runtime()
        own = runtime.embedded_registry
        assert type(own).__name__ == "Private"

        async def joined_then_stopped() -> None:
            try:
                await runtime.start(9100)
                assert runtime.heartbeat is not None
                async with asyncio.timeout(STEP):
                    await runtime.heartbeat.registered.wait()
                assert [a.registration.agent_id for a in own.server.store.agents()] == [
                    runtime.heartbeat.agent_id
                ]
            finally:
                await runtime.stop()

        asyncio.run(joined_then_stopped())
        assert sys.modules["own_registry_app"].ASKED == ["join", "stop"]
    finally:
        sys.modules.pop("own_registry_app", None)


def test_a_registry_url_or_an_excluded_registry_feature_means_no_embedded_registry() -> None:
    with_url = MeshApplication.load(
        "starter_app.calculator", environ={"MCP_MESH_REGISTRY_URL": "http://127.0.0.1:9"}
    )
    report = {b["name"]: b for b in bean_report(with_url)["beans"]}
    assert "registry.url is set" in str(report.get("embedded_registry") or report)
    with_url.build()
    assert with_url.container.mesh_runtime().embedded_registry is None


def test_without_the_registry_feature_the_agent_joins_the_registry_on_the_embedded_port() -> None:
    async def joined() -> None:
        async with RegistryServer("127.0.0.1", 0, timeout=60) as server:
            app = MeshApplication.load(
                "starter_app.calculator",
                cli={"auto_configuration.exclude": ["registry"]},
                environ={"MESH_REGISTRY__EMBEDDED_PORT": str(server.port), "MCP_MESH_HEALTH_INTERVAL": "30"},
            )
            app.build()
            runtime = app.container.mesh_runtime()
            assert runtime.embedded_registry is None
            try:
                await runtime.start(9100)
                assert runtime.heartbeat is not None
                async with asyncio.timeout(STEP):
                    await runtime.heartbeat.registered.wait()
                assert [a.registration.agent_id for a in server.store.agents()] == [
                    runtime.heartbeat.agent_id
                ]
            finally:
                await runtime.stop()

    asyncio.run(joined())


def test_a_request_waiting_when_the_agent_begins_to_listen_is_answered_before_it_joins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The join (its imports, the embedded registry's start) runs on the agent's event loop: it begins once
    the server listens and has answered the requests already waiting (a client polling for the agent's
    first answer is not kept waiting by the mesh)."""
    _app_module(tmp_path, monkeypatch, "serving_first_app", SERVING_FIRST)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}).encode()
    head = (
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    client = socket.socket()

    class SendingFirst(MeshApplication):
        def bind(self) -> socket.socket:
            sock = super().bind()  # listening: the kernel takes the connection before the server serves
            client.connect(("127.0.0.1", sock.getsockname()[1]))
            client.sendall(head.encode() + body)
            return sock

    async def served(app: MeshApplication) -> None:
        serving = asyncio.create_task(app.serve())
        async with asyncio.timeout(STEP):
            await sys.modules["serving_first_app"].JOINED.wait()
        app.stop()
        await serving

    try:
        app = SendingFirst.load(
            "serving_first_app", cli={"server.host": "127.0.0.1", "server.port": 0}, environ={}
        )
        sys.modules["serving_first_app"].CLIENT.append(client)
        asyncio.run(served(app))
        assert sys.modules["serving_first_app"].ANSWERED == [True]
        assert client.recv(65536).startswith(b"HTTP/1.1 200")
    finally:
        gc.unfreeze()  # serve() froze the heap, as it does in the process it owns
        client.close()
        sys.modules.pop("serving_first_app", None)
