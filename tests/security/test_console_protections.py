"""The mesh page's protections on the registry (`/ui`) and on `mesh console`: the CSRF token `POST /ui/call`
needs, the page's security headers and nonces, `/favicon.ico`, and which calls `/ui/call` makes at all
(a tool the agent registered, the agent healthy and on HTTP, framework tools only when the page shows
them), made through the mesh's MCP client. The registry app through Starlette's TestClient; the agent
is a real HTTP server on loopback that records what reaches it."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx2
import pytest
from starlette.testclient import TestClient

from mesh_framework.registry.registry_app import build_registry_app
from mesh_framework.registry.store import RegistryStore
from mesh_framework.registry.ui.remote import remote_console_app
from tests.agents import loopback, run_agent, run_registry, wait_until
from tests.page_token import page_headers, token_of

pytestmark = pytest.mark.timeout(120)

CSRF_REFUSED = "a tool is called from the mesh page only, with the page's token (X-Mesh-Csrf)"


class _Agent(ThreadingHTTPServer):
    """A loopback HTTP server answering every POST with a `tools/call` result; `requests` is what came."""

    requests: list[tuple[dict[str, str], dict[str, Any]]]


class _Handler(BaseHTTPRequestHandler):
    server: _Agent

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.server.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
        name = body["params"]["name"]
        result = {"content": [{"type": "text", "text": f"called {name}"}], "isError": False}
        answer = json.dumps({"jsonrpc": "2.0", "id": body["id"], "result": result}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def agent() -> Iterator[_Agent]:
    server = _Agent(("127.0.0.1", 0), _Handler)
    server.requests = []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _heartbeat(agent_id: str, port: int, *tools: str) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "name": agent_id.rsplit("-", 1)[0],
        "http_host": "127.0.0.1",
        "http_port": port,
        "tools": [{"function_name": tool, "capability": tool} for tool in tools],
    }


@pytest.fixture
def client() -> Iterator[TestClient]:
    app = build_registry_app(RegistryStore(), sweep=False)
    with TestClient(app, base_url="http://127.0.0.1", client=("127.0.0.1", 5000)) as opened:
        yield opened


def _check_page(response: httpx2.Response | Any) -> str:
    """The page's protections on one `GET /ui` answer; its CSRF token."""
    assert response.status_code == 200
    headers = response.headers
    policy = headers["content-security-policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    nonce = re.fullmatch(r"'nonce-([A-Za-z0-9_-]{16,})'", directives["script-src"])
    assert nonce is not None, policy  # no 'unsafe-inline', no other source
    assert "unsafe" not in policy
    assert headers["x-frame-options"] == "DENY"
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    html = response.text
    scripts = re.findall(r"<script[^>]*>", html)
    assert scripts and all(tag == f'<script nonce="{nonce.group(1)}">' for tag in scripts), scripts
    assert re.findall(r"<style[^>]*>", html) == [f'<style nonce="{nonce.group(1)}">']
    assert " style=" not in html and not re.search(r"<[^>]+\son[a-z]+=", html)  # no inline style or handler
    return token_of(html)


def test_the_registry_page_has_its_headers_a_fresh_nonce_and_token_each_load_and_a_favicon(
    client: TestClient,
) -> None:
    first, second = client.get("/ui"), client.get("/ui")
    assert _check_page(first) != _check_page(second)
    assert first.headers["content-security-policy"] != second.headers["content-security-policy"]
    favicon = client.get("/favicon.ico")
    assert favicon.status_code == 204 and favicon.content == b""
    assert "max-age" in favicon.headers["cache-control"]


def test_a_call_without_the_page_s_token_is_refused_before_anything_is_read(
    client: TestClient, agent: _Agent
) -> None:
    assert client.post("/heartbeat", json=_heartbeat("calc-1", agent.server_port, "add")).status_code == 200
    body = {"agent_id": "calc-1", "tool": "add", "arguments": {"a": 1}}
    token = page_headers(client)["X-Mesh-Csrf"]
    nonce, _, mac = token.partition(".")
    forged = [{}, {"X-Mesh-Csrf": ""}, {"X-Mesh-Csrf": nonce}, {"X-Mesh-Csrf": f"{nonce}.{mac[:-1]}x"}]
    forged.append({"X-Mesh-Csrf": f"other{nonce}.{mac}"})
    for headers in forged:
        refused = client.post("/ui/call", json=body, headers=headers)
        assert refused.status_code == 403, headers
        assert refused.json()["message"].startswith(CSRF_REFUSED)
        assert refused.json()["field"] == "X-Mesh-Csrf"
    assert agent.requests == []  # nothing reached the agent
    answered = client.post("/ui/call", json=body, headers={"X-Mesh-Csrf": token})
    assert answered.status_code == 200
    assert json.loads(answered.text.splitlines()[-1])["result"]["content"][0]["text"] == "called add"


def test_the_console_calls_only_registered_tools_of_healthy_http_agents_through_the_mesh_client(
    client: TestClient, agent: _Agent
) -> None:
    port = agent.server_port
    assert (
        client.post("/heartbeat", json=_heartbeat("calc-1", port, "add", "__mesh_job_status")).status_code
        == 200
    )
    assert client.post("/heartbeat", json=_heartbeat("piped-1", 0, "add")).status_code == 200
    page = page_headers(client)

    def call(agent_id: str, tool: str, **extra: Any) -> Any:
        body = {"agent_id": agent_id, "tool": tool, "arguments": {"a": 1}, **extra}
        return client.post("/ui/call", json=body, headers=page)

    refusals = [
        (call("calc-1", "shutdown"), 404, "tool", "registered no tool 'shutdown'"),
        (call("calc-1", "__mesh_job_status"), 403, "tool", "framework tool"),
        (call("calc-1", "add", framework="yes"), 400, "framework", "true or false"),
        (call("nobody-1", "add"), 404, "agent_id", "no agent 'nobody-1'"),
        (call("piped-1", "add"), 409, "agent_id", "serves no HTTP endpoint"),
    ]
    for response, status, field, text in refusals:
        assert (response.status_code, response.json()["field"]) == (status, field), response.text
        assert text in response.json()["message"]
    assert agent.requests == []  # none of them left the registry

    answered = call("calc-1", "add")
    assert answered.headers["content-type"].startswith("application/x-ndjson")
    assert [json.loads(line)["result"]["isError"] for line in answered.text.splitlines()] == [False]
    shown = call("calc-1", "__mesh_job_status", framework=True)  # the page shows framework tools
    assert json.loads(shown.text)["result"]["content"][0]["text"] == "called __mesh_job_status"
    headers, sent = agent.requests[0]
    # the mesh's MCP client (mesh/transport.py), not a bare POST: its protocol headers and _meta
    assert headers["mcp-method"] == "tools/call" and headers["mcp-name"] == "add"
    assert "mcp-protocol-version" in headers
    assert sent["params"]["arguments"] == {"a": 1} and "progressToken" in sent["params"]["_meta"]

    store: RegistryStore = client.app.state.store  # type: ignore[attr-defined]
    state = store.get("calc-1")
    assert state is not None
    state.healthy = False  # as the health sweep leaves an agent silent for the timeout
    unhealthy = call("calc-1", "add")
    assert unhealthy.status_code == 409 and "not healthy" in unhealthy.json()["message"]
    assert len(agent.requests) == 2


def test_mesh_console_s_page_has_the_same_protections_and_rules() -> None:
    """The page served apart from the registry (`mesh console`): headers, token, favicon, and its calls
    only to tools the registry lists for a healthy agent; a real registry and a real agent (whose own
    web side answers /favicon.ico too)."""
    with run_registry(0, "--timeout", "120") as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
        with run_agent("tests.apps.console_app.sleeper", env=env) as sleeper:
            favicon = loopback.get(sleeper.base_url + "/favicon.ico", timeout=10)
            assert favicon.status_code == 204
            app = remote_console_app(registry.base_url)
            with TestClient(app, base_url="http://127.0.0.1") as console:

                def sleeper_id() -> str | None:
                    rows = console.get("/ui/tools").json()["tools"]
                    return next((r["agent_id"] for r in rows if r["tool"] == "greet" and r["healthy"]), None)

                agent_id = wait_until(sleeper_id, timeout=30)
                token = _check_page(console.get("/ui"))
                assert console.get("/favicon.ico").status_code == 204
                body = {"agent_id": agent_id, "tool": "greet", "arguments": {"name": "Ann"}}
                refused = console.post("/ui/call", json=body)
                assert refused.status_code == 403 and refused.json()["message"].startswith(CSRF_REFUSED)
                page = {"X-Mesh-Csrf": token}
                unknown = console.post("/ui/call", json={**body, "tool": "nope"}, headers=page)
                assert unknown.status_code == 404 and unknown.json()["field"] == "tool"
                framework = console.post("/ui/call", json={**body, "tool": "__mesh_job_status"}, headers=page)
                assert framework.status_code == 403 and framework.json()["field"] == "tool"
                answered = console.post("/ui/call", json=body, headers=page)
                assert answered.status_code == 200
                assert (
                    "hello Ann" in json.loads(answered.text.splitlines()[-1])["result"]["content"][0]["text"]
                )
