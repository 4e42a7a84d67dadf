"""Tracing in process: the server span of a tool call continues whichever trace context the caller sent
(W3C in `_meta` or the header, MCP Mesh's headers or arguments), a malformed one starts a new trace, LLM
iterations are spans, JSON logs carry the call's ids, and tracing off records and sends nothing."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from mesh_framework import ConfigError, LlmModel, MeshApplication
from mesh_framework.logs import JsonFormatter
from mesh_framework.testing import MeshTestClient, ScriptedLlm, mesh_client
from mesh_framework.testing.client import build_request, result_of
from mesh_framework.tracing import inject_trace, parse_traceparent, state, tracer_provider

TRACED = {
    "MESH_TRACING__ENABLED": "true",
    "MESH_TRACING__EXPORTER": "none",
    "MESH_REGISTRY__ENABLED": "false",
}
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE_ID}-{PARENT_ID}-01"


@pytest.fixture(autouse=True)
def tracing_off_afterwards() -> Iterator[None]:
    yield
    state.tracer = state.provider = None
    state.log_calls = False


@pytest.fixture
async def traced() -> AsyncIterator[tuple[MeshTestClient, InMemorySpanExporter]]:
    app = MeshApplication.load("tests.apps.tracing_app.back", environ=TRACED)
    async with mesh_client(app) as client:
        exporter = InMemorySpanExporter()
        tracer_provider().add_span_processor(SimpleSpanProcessor(exporter))
        yield client, exporter


async def call(
    client: MeshTestClient,
    tool: str,
    arguments: dict[str, Any],
    *,
    meta: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    modern: bool = True,
) -> dict[str, Any]:
    body, base = build_request("tools/call", {"name": tool, "arguments": arguments}, modern=modern, name=tool)
    if meta:
        body["params"]["_meta"] = {**body["params"].get("_meta", {}), **meta}
    response = await client.http.post("/mcp", json=body, headers={**base, **(headers or {})})
    return result_of(response, "tools/call")


def only_span(exporter: InMemorySpanExporter) -> ReadableSpan:
    (span,) = exporter.get_finished_spans()
    return span


def ids(span: ReadableSpan) -> tuple[str, str | None]:
    assert span.context is not None
    parent = f"{span.parent.span_id:016x}" if span.parent is not None else None
    return f"{span.context.trace_id:032x}", parent


def test_traceparent_parsing_accepts_w3c_and_rejects_the_rest() -> None:
    context = parse_traceparent(TRACEPARENT, "vendor=x")
    assert context is not None and context.is_remote
    assert (f"{context.trace_id:032x}", f"{context.span_id:016x}") == (TRACE_ID, PARENT_ID)
    assert context.trace_state.get("vendor") == "x"
    for bad in [
        "",
        "garbage",
        f"00-{TRACE_ID.upper()}-{PARENT_ID}-01",  # W3C ids are lowercase
        f"00-{TRACE_ID[:-1]}-{PARENT_ID}-01",
        f"00-{'0' * 32}-{PARENT_ID}-01",  # the all-zero trace id is invalid
        f"00-{TRACE_ID}-{'0' * 16}-01",
        f"ff-{TRACE_ID}-{PARENT_ID}-01",
        f"00-{TRACE_ID}-{PARENT_ID}-01-extra",  # version 00 has exactly four fields
        None,
        42,
    ]:
        assert parse_traceparent(bad) is None, bad
    future = parse_traceparent(f"01-{TRACE_ID}-{PARENT_ID}-01-more")  # later versions may add fields
    assert future is not None


@pytest.mark.parametrize(
    ("how", "source"),
    [
        ({"meta": {"traceparent": TRACEPARENT}}, "_meta"),
        ({"headers": {"traceparent": TRACEPARENT}}, "traceparent"),
        ({"headers": {"traceparent": TRACEPARENT}, "modern": False}, "traceparent"),
        ({"headers": {"X-Trace-ID": TRACE_ID, "X-Parent-Span": PARENT_ID}}, "x-trace-id"),
        ({"arguments": {"_trace_id": TRACE_ID, "_parent_span": PARENT_ID}}, "_trace_id"),
    ],
)
async def test_the_call_span_continues_the_callers_trace(
    traced: tuple[MeshTestClient, InMemorySpanExporter], how: dict[str, Any], source: str
) -> None:
    client, exporter = traced
    arguments = {"text": "hi", **how.pop("arguments", {})}
    result = await call(client, "back", arguments, **how)
    assert result["structuredContent"] == {"result": "back:hi"}  # the mesh keys were not arguments
    span = only_span(exporter)
    assert span.name == "tools/call back"
    assert span.kind == trace.SpanKind.SERVER
    assert ids(span) == (TRACE_ID, PARENT_ID)
    assert span.attributes is not None
    assert span.attributes["mesh.trace.source"] == source
    assert span.attributes["gen_ai.tool.name"] == "back"
    assert span.resource.attributes["service.name"] == span.resource.attributes["mesh.agent"] == "trace-back"


@pytest.mark.parametrize(
    "how",
    [
        {"meta": {"traceparent": "00-not-a-trace-01"}},
        {"headers": {"traceparent": f"00-{TRACE_ID}-{'0' * 16}-01"}},
        {"headers": {"traceparent": "ff" + TRACEPARENT[2:]}},
        {"headers": {"X-Trace-ID": "short", "X-Parent-Span": PARENT_ID}},
        {"headers": {"X-Trace-ID": TRACE_ID}},  # no parent span: nothing to hang the span on
        {"arguments": {"_trace_id": 42, "_parent_span": ["x"]}},
    ],
)
async def test_a_malformed_trace_context_is_ignored_and_the_call_starts_a_new_trace(
    traced: tuple[MeshTestClient, InMemorySpanExporter], how: dict[str, Any]
) -> None:
    client, exporter = traced
    arguments = {"text": "hi", **how.pop("arguments", {})}
    result = await call(client, "back", arguments, **how)
    assert result["isError"] is False
    span = only_span(exporter)
    trace_id, parent = ids(span)
    assert parent is None and trace_id != TRACE_ID
    assert span.attributes is not None and "mesh.trace.source" not in span.attributes


async def test_meta_wins_over_headers_and_a_bad_meta_falls_back_to_the_header(
    traced: tuple[MeshTestClient, InMemorySpanExporter],
) -> None:
    client, exporter = traced
    other = f"00-{'1' * 32}-{'2' * 16}-01"
    await call(
        client, "back", {"text": "a"}, meta={"traceparent": TRACEPARENT}, headers={"traceparent": other}
    )
    await call(client, "back", {"text": "b"}, meta={"traceparent": "junk"}, headers={"traceparent": other})
    first, second = exporter.get_finished_spans()
    assert ids(first) == (TRACE_ID, PARENT_ID)
    assert ids(second) == ("1" * 32, "2" * 16)


async def test_a_failing_tool_marks_its_span_as_an_error(
    traced: tuple[MeshTestClient, InMemorySpanExporter],
) -> None:
    client, exporter = traced
    result = await call(client, "fails", {})
    assert result["isError"] is True
    span = only_span(exporter)
    assert span.status.status_code == trace.StatusCode.ERROR
    assert span.status.description is not None and "broken on purpose" in span.status.description


async def test_a_streamed_answer_that_fails_marks_its_span_too(
    traced: tuple[MeshTestClient, InMemorySpanExporter],
) -> None:
    client, exporter = traced
    result = await call(client, "streams_then_fails", {}, headers={"traceparent": TRACEPARENT})
    assert result["isError"] is True
    span = only_span(exporter)
    assert ids(span) == (TRACE_ID, PARENT_ID)
    assert span.status.status_code == trace.StatusCode.ERROR
    assert span.status.description is not None and "broken while streaming" in span.status.description


async def test_outgoing_requests_carry_the_current_span_in_every_form(
    traced: tuple[MeshTestClient, InMemorySpanExporter],
) -> None:
    tracer = state.tracer
    with tracer.start_as_current_span("caller") as span:
        params: dict[str, Any] = {"name": "t", "arguments": {"x": 1}, "_meta": {"progressToken": 3}}
        headers: dict[str, str] = {}
        inject_trace("tools/call", params, headers)
        context = span.get_span_context()
    trace_id, span_id = f"{context.trace_id:032x}", f"{context.span_id:016x}"
    assert headers == {
        "traceparent": f"00-{trace_id}-{span_id}-{int(context.trace_flags):02x}",
        "X-Trace-ID": trace_id,
        "X-Parent-Span": span_id,
    }
    assert params["_meta"] == {"progressToken": 3, "traceparent": headers["traceparent"]}
    assert params["arguments"] == {"x": 1, "_trace_id": trace_id, "_parent_span": span_id}
    listing: dict[str, Any] = {}
    with tracer.start_as_current_span("caller"):
        inject_trace("tools/list", listing, {})
    assert "arguments" not in listing and "traceparent" in listing["_meta"]


async def test_llm_iterations_are_spans_inside_the_tool_call() -> None:
    app = MeshApplication.load("tests.apps.llm_app", environ=TRACED)
    model = ScriptedLlm([ScriptedLlm.call("multiply", a=6, b=7), "42"])
    with app.override(LlmModel, model):
        async with mesh_client(app) as client:
            exporter = InMemorySpanExporter()
            tracer_provider().add_span_processor(SimpleSpanProcessor(exporter))
            result = await call(client, "ask", {"question": "6 x 7?"})
    assert result["isError"] is False
    spans = {s.name: s for s in exporter.get_finished_spans()}
    assert set(spans) == {"tools/call ask", "llm iteration 1", "llm iteration 2"}
    root = spans["tools/call ask"]
    assert root.context is not None
    for name in ("llm iteration 1", "llm iteration 2"):
        assert spans[name].parent is not None and spans[name].parent.span_id == root.context.span_id
    first = spans["llm iteration 1"].attributes
    assert first is not None and first["mesh.llm.tool_calls"] == 1 and "'ask'" in str(first["mesh.llm.label"])


async def test_tracing_off_records_nothing_and_sends_nothing() -> None:
    app = MeshApplication.load("tests.apps.tracing_app.back", environ={"MESH_REGISTRY__ENABLED": "false"})
    async with mesh_client(app) as client:
        assert tracer_provider() is None
        result = await call(client, "back", {"text": "x"}, headers={"traceparent": TRACEPARENT})
        assert result["isError"] is False
    params: dict[str, Any] = {"arguments": {}}
    headers: dict[str, str] = {}
    inject_trace("tools/call", params, headers)  # no span is current
    assert params == {"arguments": {}} and headers == {}


async def test_json_logs_name_the_agent_tool_request_and_trace() -> None:
    app = MeshApplication.load(
        "tests.apps.tracing_app.back", environ={**TRACED, "MESH_LOGGING__FORMAT": "json"}
    )
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter("trace-back"))
    logger = logging.getLogger("tracing_app.back")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        async with mesh_client(app) as client:
            await call(
                client, "back", {"text": "one"}, headers={"traceparent": TRACEPARENT, "X-Request-ID": "r-1"}
            )
            await call(client, "back", {"text": "two"})
        logging.getLogger("tracing_app.back").info("outside any call")
    finally:
        logger.removeHandler(handler)
    one, two, outside = (json.loads(line) for line in stream.getvalue().splitlines())
    assert one["message"] == "back handled one" and one["level"] == "INFO"
    assert one["agent"] == "trace-back" and one["tool"] == "back"
    assert one["request_id"] == "r-1" and one["trace_id"] == TRACE_ID and len(one["span_id"]) == 16
    assert two["tool"] == "back" and len(two["request_id"]) == 16 and two["trace_id"] != TRACE_ID
    assert {"tool", "request_id", "trace_id"}.isdisjoint(outside)


@contextmanager
def otlp_receiver() -> Iterator[tuple[str, list[tuple[str, ExportTraceServiceRequest]]]]:
    """An OTLP/HTTP traces endpoint on loopback: every POST decoded, with its path."""
    received: list[tuple[str, ExportTraceServiceRequest]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            received.append((self.path, request))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("where", ["tracing.endpoint", "OTEL_EXPORTER_OTLP_ENDPOINT"])
async def test_the_otlp_exporter_sends_the_spans_to_a_collector(
    where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with otlp_receiver() as (url, received):
        env = {"MESH_TRACING__ENABLED": "true", "MESH_REGISTRY__ENABLED": "false"}
        if where == "tracing.endpoint":
            env["MESH_TRACING__ENDPOINT"] = url + "/v1/traces"
        else:
            monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", url)  # the SDK adds /v1/traces
        app = MeshApplication.load("tests.apps.tracing_app.back", environ=env)
        async with mesh_client(app) as client:
            await call(client, "back", {"text": "x"}, headers={"traceparent": TRACEPARENT})
            assert tracer_provider().force_flush(10_000)
    spans = [
        (path, resource.resource, span)
        for path, request in received
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]
    assert len(spans) == 1
    path, resource, span = spans[0]
    assert path == "/v1/traces"
    assert span.name == "tools/call back" and span.kind == span.SPAN_KIND_SERVER
    assert (span.trace_id.hex(), span.parent_span_id.hex()) == (TRACE_ID, PARENT_ID)
    attributes = {a.key: a.value.string_value for a in resource.attributes}
    assert attributes["service.name"] == "trace-back"


async def test_without_the_sdk_tracing_is_off_with_one_clear_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    for name in [m for m in sys.modules if m == "opentelemetry.sdk" or m.startswith("opentelemetry.sdk.")]:
        monkeypatch.setitem(sys.modules, name, None)  # as if the otel extra were not installed
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk", None)
    app = MeshApplication.load(
        "tests.apps.tracing_app.back", environ={**TRACED, "MESH_TRACING__EXPORTER": "otlp"}
    )
    with caplog.at_level(logging.WARNING, logger="mesh_framework.tracing"):
        async with mesh_client(app) as client:
            result = await call(client, "back", {"text": "x"}, headers={"traceparent": TRACEPARENT})
    assert result["structuredContent"] == {"result": "back:x"}
    assert tracer_provider() is None and state.tracer is None
    warnings = [r.getMessage() for r in caplog.records if r.name == "mesh_framework.tracing"]
    assert len(warnings) == 1
    assert "OpenTelemetry SDK is missing" in warnings[0] and "mesh-framework[otel]" in warnings[0]


async def test_otel_service_name_names_the_service(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_SERVICE_NAME", "checkout")
    async with mesh_client(MeshApplication.load("tests.apps.tracing_app.back", environ=TRACED)) as client:
        exporter = InMemorySpanExporter()
        tracer_provider().add_span_processor(SimpleSpanProcessor(exporter))
        await call(client, "back", {"text": "x"})
    resource = only_span(exporter).resource.attributes
    assert (resource["service.name"], resource["mesh.agent"]) == ("checkout", "trace-back")


def test_the_file_exporter_needs_a_file() -> None:
    env = {**TRACED, "MESH_TRACING__EXPORTER": "file"}
    with pytest.raises(ConfigError) as caught:
        MeshApplication.load("tests.apps.tracing_app.back", environ=env)
    (problem,) = caught.value.problems
    assert problem.startswith(
        "tracing.exporter = 'file' (from environment variable MESH_TRACING__EXPORTER)"
    ), problem
    assert "needs tracing.file (MESH_TRACING__FILE)" in problem


GLOBAL_PROVIDER = """
import json, logging, sys
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from mesh_framework.config.settings import TracingSettings
from mesh_framework.tracing import configure_tracing, tracer_provider

messages = []
handler = logging.Handler()
handler.emit = lambda record: messages.append(record.getMessage())
logging.getLogger().addHandler(handler)
own = TracerProvider() if sys.argv[1] == "own" else None
if own is not None:
    trace.set_tracer_provider(own)
configure_tracing(TracingSettings(enabled=True, exporter="none"), agent="a")
first = tracer_provider()
configure_tracing(TracingSettings(enabled=True, exporter="none"), agent="b")  # another app's build
current = trace.get_tracer_provider()
print(json.dumps({"ours": current is first, "own": current is own, "messages": messages}))
"""


@pytest.mark.parametrize("first", ["none", "own"])
def test_the_first_provider_becomes_the_global_one_unless_the_application_set_one(first: str) -> None:
    """In a fresh process: with no provider set, ours becomes OpenTelemetry's global one (the application's
    spans join the agent's traces); a provider the application set first is kept, without the API's
    "Overriding of current TracerProvider is not allowed" warning."""
    done = subprocess.run(
        [sys.executable, "-c", GLOBAL_PROVIDER, first],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome == {"ours": first == "none", "own": first == "own", "messages": []}
