"""A `@mesh_route` request is traced and propagates like a tool call: its server span continues the
caller's W3C trace and the proxy call it makes is the child; the allowlisted headers and what is left of
the `X-Mesh-Timeout` budget reach the provider, also from inside a Server-Sent Events answer.

The routes run in process (OpenTelemetry's in-memory exporter reads their spans); the provider is a real
agent process that answers with the headers it received."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mesh_framework import MeshApplication
from mesh_framework.mesh.proxy import Provider
from mesh_framework.testing import MeshTestClient, mesh_client
from mesh_framework.tracing import state, tracer_provider
from tests.agents import AgentProcess, run_agent

pytestmark = pytest.mark.timeout(60)

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE_ID}-{PARENT_ID}-01"
FRONT_ALLOWS = "X-Tenant-*"  # the routes' agent
BACK_ALLOWS = "x-tenant-*,authorization,x-other,traceparent"  # the provider shows all of these it gets
TRACED = {"MESH_TRACING__ENABLED": "true", "MESH_TRACING__EXPORTER": "none"}


@pytest.fixture(scope="module")
def provider() -> Iterator[AgentProcess]:
    with run_agent(
        "tests.apps.propagation_app.back", env={"MCP_MESH_PROPAGATE_HEADERS": BACK_ALLOWS}
    ) as back:
        yield back


@pytest.fixture(autouse=True)
def tracing_off_afterwards() -> Iterator[None]:
    yield
    state.tracer = state.provider = None
    state.log_calls = False


@asynccontextmanager
async def routes(provider: AgentProcess, **environ: str) -> AsyncIterator[MeshTestClient]:
    """The routes' agent in process, its `headers_seen` slots given a proxy to the provider process (as
    the registry's answer would)."""
    app = MeshApplication.load(
        "tests.apps.routes_relay_app",
        environ={"MESH_REGISTRY__ENABLED": "false", "MCP_MESH_PROPAGATE_HEADERS": FRONT_ALLOWS, **environ},
    )
    async with mesh_client(app) as client:
        factory = app.container.proxy_factory()
        proxy = factory.proxy_for("headers_seen", Provider("back-1", provider.base_url, "headers_seen"))
        for wrapper in app.container.web_app().registry:
            for dependency in wrapper.spec.dependencies:
                wrapper.update_dependency(dependency.index, proxy)
        try:
            yield client
        finally:
            await factory.aclose()


def streamed(text: str) -> dict[str, str]:
    """The provider's answer as the stream route sends it (its second event)."""
    events = [line[len("data: ") :] for line in text.splitlines() if line.startswith("data: ")]
    assert events[0] == "calling" and events[-1] == "[DONE]", text
    answer: dict[str, str] = json.loads(events[1])
    return answer


async def test_a_route_request_continues_the_callers_trace_and_its_proxy_call_is_the_child(
    provider: AgentProcess,
) -> None:
    async with routes(provider, **TRACED) as client:
        exporter = InMemorySpanExporter()
        tracer_provider().add_span_processor(SimpleSpanProcessor(exporter))
        answer = await client.http.get("/api/relay/ada", headers={"traceparent": TRACEPARENT})
        assert answer.status_code == 200
        spans = exporter.get_finished_spans()
    [server] = [s for s in spans if s.kind == trace.SpanKind.SERVER]
    [client_span] = [s for s in spans if s.kind == trace.SpanKind.CLIENT]
    assert server.name == "GET /api/relay/{who}"  # the route, not the path: one name for every `who`
    assert server.context is not None and client_span.context is not None
    assert f"{server.context.trace_id:032x}" == TRACE_ID
    assert server.parent is not None and f"{server.parent.span_id:016x}" == PARENT_ID
    assert dict(server.attributes or {}) == {
        "http.request.method": "GET",
        "http.route": "/api/relay/{who}",
        "mesh.trace.source": "traceparent",
        "http.response.status_code": 200,
    }
    assert client_span.name == "tools/call headers_seen"
    assert client_span.context.trace_id == server.context.trace_id
    assert client_span.parent is not None and client_span.parent.span_id == server.context.span_id
    # and the provider was called inside it: the traceparent it received names the client span
    received = answer.json()["traceparent"]
    assert received == f"00-{TRACE_ID}-{client_span.context.span_id:016x}-01"


async def test_a_stream_route_is_one_span_around_its_stream(provider: AgentProcess) -> None:
    async with routes(provider, **TRACED) as client:
        exporter = InMemorySpanExporter()
        tracer_provider().add_span_processor(SimpleSpanProcessor(exporter))
        answer = await client.http.get("/api/relay-stream", headers={"traceparent": TRACEPARENT})
        received = streamed(answer.text)["traceparent"]
        spans = {s.kind: s for s in exporter.get_finished_spans()}
    server, client_span = spans[trace.SpanKind.SERVER], spans[trace.SpanKind.CLIENT]
    assert server.name == "GET /api/relay-stream"
    assert server.context is not None and client_span.context is not None
    assert client_span.parent is not None and client_span.parent.span_id == server.context.span_id
    assert received == f"00-{TRACE_ID}-{client_span.context.span_id:016x}-01"


async def test_a_failing_route_marks_its_span_as_an_error(provider: AgentProcess) -> None:
    async with routes(provider, **TRACED) as client:
        exporter = InMemorySpanExporter()
        tracer_provider().add_span_processor(SimpleSpanProcessor(exporter))
        # a budget already spent when the route calls: the call is not sent, the route answers 500
        answer = await client.http.get("/api/relay/ada", headers={"X-Mesh-Timeout": "0.000001"})
        [server] = [s for s in exporter.get_finished_spans() if s.kind == trace.SpanKind.SERVER]
    assert answer.status_code == 500
    assert "time budget (X-Mesh-Timeout) is spent" in answer.json()["detail"]
    assert server.status.status_code == trace.StatusCode.ERROR
    assert server.attributes is not None and server.attributes["http.response.status_code"] == 500


@pytest.mark.parametrize("stream", [False, True])
async def test_allowlisted_headers_and_the_budget_reach_the_provider(
    provider: AgentProcess, stream: bool
) -> None:
    headers = {
        "X-Tenant-Id": "acme",
        "Authorization": "Bearer secret",  # the provider would show it; the routes' agent does not send it
        "X-Other": "o",
        "X-Mesh-Timeout": "7",
    }
    async with routes(provider) as client:
        if stream:
            seen = streamed((await client.http.get("/api/relay-stream", headers=headers)).text)
        else:
            seen = (await client.http.get("/api/relay/ada", headers=headers)).json()
    assert seen["x-tenant-id"] == "acme"
    assert "authorization" not in seen and "x-other" not in seen
    assert 6 < float(seen["x-mesh-timeout"]) < 7  # what was left of it when the route called
    assert "traceparent" not in seen  # tracing is off: no trace is made up


async def test_without_opentelemetry_the_console_records_the_route_and_its_call(
    provider: AgentProcess,
) -> None:
    # an agent in a registry: the console's span buffer is filled from the moment it serves (it never joins
    # the registry here, in-process)
    async with routes(provider, MESH_REGISTRY__ENABLED="true") as client:
        buffer: deque[Any] | None = state.spans
        assert buffer is not None
        seen = (await client.http.get("/api/relay/ada", headers={"traceparent": TRACEPARENT})).json()
        records = {record[4]: record for record in buffer}
    assert state.spans is None  # the agent stopped: its buffer is gone
    server, client_span = records["SERVER"], records["CLIENT"]
    assert server[:3:2] == (int(TRACE_ID, 16), int(PARENT_ID, 16))  # trace id, parent span id
    assert server[3] == "GET /api/relay/{who}"
    assert client_span[0] == server[0] and client_span[2] == server[1]
    assert seen["traceparent"] == f"00-{TRACE_ID}-{client_span[1]:016x}-01"
