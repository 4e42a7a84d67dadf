"""Every route of a real registry process (`mesh registry`) and of `mesh console`'s app over it, fuzzed
beyond its description: any method a route takes, path parameters, query numbers, and bodies that are
valid payloads with one part replaced (any JSON, or text JSON cannot carry: NaN, 1e999, lone surrogates,
deep nesting, 50-digit integers, bytes that are not UTF-8). Never a 5xx, never a traceback in the log,
and after each request every reading route still answers 200: nothing a caller sends breaks what the
registry shows to everyone. Tool calls go to a loopback server standing in for the agent."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import quote

import httpx2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.routing import Route
from starlette.testclient import TestClient

from mesh_framework.registry.registry_app import build_registry_app
from mesh_framework.registry.store import RegistryStore
from mesh_framework.registry.ui.remote import remote_console_app
from tests.agents import AgentProcess, run_registry
from tests.page_token import token_of

pytestmark = pytest.mark.timeout(600)

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "15")) * 8
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
READS = ("/agents", "/ui/state", "/ui/tools", "/ui/console", "/ui/events", "/a2a/agents", "/jobs", "/metrics")
JSON = {"content-type": "application/json"}


class _Agent(ThreadingHTTPServer):
    """Answers every POST with a `tools/call` result: where the fuzzed console calls land."""


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        result = {"content": [{"type": "text", "text": "ok"}], "isError": False}
        answer = json.dumps({"jsonrpc": "2.0", "id": request.get("id"), "result": result}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def agent_port() -> Iterator[int]:
    server = _Agent(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="module")
def registry() -> Iterator[AgentProcess]:
    with run_registry(0, "--timeout", "300") as running:
        yield running
    log = running.text()
    assert "Traceback" not in log and " failed: " not in log, log[-3000:]


@pytest.fixture(scope="module")
def http(registry: AgentProcess) -> Iterator[httpx2.Client]:
    with httpx2.Client(base_url=registry.base_url, trust_env=False, timeout=30) as client:
        yield client


# -- what is sent ---------------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
# text that Python's json takes but JSON cannot carry back out, and text that is not JSON at all
NOT_JSON = st.sampled_from(
    [
        "NaN",
        "-Infinity",
        "1e999",
        "-1e400",
        "9" * 50,
        '"\\ud800"',
        '"x\\udfff"',
        '{"\\udc00": 1}',
        "[" * 300 + "]" * 300,
        "{" * 5000,
        '"' + "a" * 10_000 + '"',
        "\x00",
    ]
)
PLACEHOLDER = "__FUZZ_PLACEHOLDER__"


def _heartbeat(agent_id: str, port: int) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "name": "fuzz",
        "http_host": "127.0.0.1",
        "http_port": port,
        "tools": [
            {
                "function_name": "add",
                "capability": "add",
                "version": "1.0.0",
                "tags": ["math"],
                "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}},
                "kwargs": {"stream_type": "text"},
                "dependencies": [{"capability": "sub", "tags": ["math"], "version": ">=1.0"}],
                "llm_filter": {"filter": ["add"], "filter_mode": "all"},
                "llm_provider": {"capability": "llm"},
                "outputSchemaCanonical": {"type": "object"},
            },
            {"function_name": "__mesh_job_status", "capability": "__mesh_job_status"},
        ],
        "surfaces": [{"path": "/a2a/add", "skill_id": "add"}],
    }


def _bases(port: int) -> dict[str, Any]:
    span = ["a" * 32, "b" * 16, "", "tools/call add", "SERVER", "add", 1.7e9, 0.001, ""]
    return {
        "/heartbeat": _heartbeat("fuzz-agent", port),
        "/console/push": {
            "agent_id": "fuzz-agent",
            "tools": [["add", 1, 0, 0.01, {"3": 1}]],
            "edges": [["sub", f"http://127.0.0.1:{port}", 1, 0, 0.01, {"3": 1}]],
            "tokens": [["gpt", "add", 1, 2, 1]],
            "spans": [span],
        },
        "/ui/call": {"agent_id": "fuzz-agent", "tool": "add", "arguments": {"a": 1}, "framework": False},
        "/jobs": {"capability": "add", "submitted_by": "fuzz-agent", "payload": {"a": 1}},
        "/jobs/claim": {"capability": "add", "instance_id": "fuzz-agent"},
        "/jobs/batch": {"instance_id": "fuzz-agent", "deltas": [{"id": "x", "status": "completed"}]},
        "/jobs/{job_id}/cancel": {"reason": "fuzz"},
        "/jobs/{job_id}/events": {"type": "progress", "payload": {"p": 1}},
    }


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [here]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*here, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*here, index))
    return found


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = json.loads(json.dumps(value))
    node = copy
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = new
    return copy


@st.composite
def bodies(draw: st.DrawFn, base: Any) -> bytes:
    """`base` with one part replaced by any JSON value, or by text JSON cannot carry, or deleted; or bytes."""
    kind = draw(st.sampled_from(["json", "not-json", "delete", "bytes"]))
    if kind == "bytes":
        return draw(st.binary(max_size=64))
    path = draw(st.sampled_from(_paths(base)))
    if kind == "delete" and path:
        copy = _replaced(base, path, None)
        parent = copy
        for key in path[:-1]:
            parent = parent[key]
        del parent[path[-1]]
        return json.dumps(copy).encode()
    if kind == "json":
        return json.dumps(_replaced(base, path, draw(JSON_VALUES))).encode()
    text = json.dumps(_replaced(base, path, PLACEHOLDER))
    return text.replace(json.dumps(PLACEHOLDER), draw(NOT_JSON), 1).encode("utf-8", "surrogatepass")


QUERY = st.dictionaries(
    st.sampled_from(
        [
            "limit",
            "since",
            "agent_id",
            "function_name",
            "dep_index",
            "type",
            "status",
            "after",
            "wait",
            "types",
        ]
    ),
    st.sampled_from(["0", "1", "-1", "²", "9" * 30, "nan", "inf", "x", "", "1e3", "__mesh_job_status"])
    | st.text(max_size=12),
    max_size=3,
)
SEGMENT = st.sampled_from(["fuzz-agent", "nobody-1", "x"]) | st.text(min_size=1, max_size=12)


def _routes() -> list[tuple[str, str]]:
    store = RegistryStore(None)
    try:
        app = build_registry_app(store)
    finally:
        store.close()
    return sorted(
        (route.path, method)
        for route in app.routes
        if isinstance(route, Route)
        for method in (route.methods or ())
        if not route.path.endswith(
            "/stream"
        )  # the push streams stay open: tests/registry/test_registry_push.py
    )


ROUTES = _routes()


def _url(template: str, segment: str, query: dict[str, str]) -> str:
    path = template
    for name in ("agent_id", "job_id", "digest"):
        path = path.replace("{" + name + "}", quote(segment, safe=""))
    return path + ("?" + "&".join(f"{quote(k)}={quote(v)}" for k, v in query.items()) if query else "")


def _everything_reads(http: Any) -> None:
    for path in READS:
        response = http.get(path)
        assert response.status_code == 200, (path, response.text[:300])


# -- the fuzzing ----------------------------------------------------------------------------------------


@FUZZ
@given(data=st.data())
def test_every_registry_route_answers_bad_input_without_failing(
    data: st.DataObject, http: httpx2.Client, agent_port: int
) -> None:
    bases = _bases(agent_port)
    assert http.post("/heartbeat", json=bases["/heartbeat"]).status_code == 200
    template, method = data.draw(st.sampled_from(ROUTES))
    url = _url(template, data.draw(SEGMENT), data.draw(QUERY))
    headers = dict(JSON)
    if template == "/ui/call":
        headers["X-Mesh-Csrf"] = token_of(http.get("/ui").text)
    body = (
        data.draw(bodies(bases.get(template, {}))) if method in ("POST", "PUT", "PATCH", "DELETE") else None
    )
    response = http.request(method, url, content=body, headers=headers)
    assert response.status_code < 500, (method, url, body[:200] if body else None, response.text[:300])
    _everything_reads(http)


@FUZZ
@given(data=st.data())
def test_every_console_route_of_mesh_console_answers_bad_input_without_failing(
    data: st.DataObject, registry: AgentProcess, http: httpx2.Client, agent_port: int
) -> None:
    bases = _bases(agent_port)
    assert http.post("/heartbeat", json=bases["/heartbeat"]).status_code == 200
    app = remote_console_app(registry.base_url)
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as console:
        routes = sorted(
            (r.path, m)
            for r in app.routes
            if isinstance(r, Route) and not r.path.endswith("/stream")
            for m in r.methods or ()
        )
        template, method = data.draw(st.sampled_from(routes))
        url = _url(template, data.draw(SEGMENT), data.draw(QUERY))
        headers = {**JSON, "X-Mesh-Csrf": token_of(console.get("/ui").text)}
        body = data.draw(bodies(bases.get(template, {}))) if method == "POST" else None
        response = console.request(method, url, content=body, headers=headers)
        assert response.status_code < 500, (method, url, body[:200] if body else None, response.text[:300])
        for path in ("/ui/state", "/ui/tools", "/ui/console", "/ui/events"):
            assert console.get(path).status_code == 200, path


def test_the_registry_still_answers_after_fuzzing(http: httpx2.Client) -> None:
    _everything_reads(http)
    assert http.get("/health").status_code == 200
