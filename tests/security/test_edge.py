"""The guarded edge: every HTTP surface of an agent, the registry and the console is behind it, and what it
enforces (Host/Origin, content types, body limits while reading, error mapping, the caller's identity)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.routing import BaseRoute, Mount, Route
from starlette.testclient import TestClient

from mesh_framework.app import MeshApplication
from mesh_framework.edge import EdgePolicy, GuardedEdge, edge_of
from mesh_framework.protocol.guard import LOOPBACK_HOSTS, LOOPBACK_ORIGINS, HostGuard
from mesh_framework.registry import RegistryStore, build_registry_app
from mesh_framework.registry.ui.remote import remote_console_app
from mesh_framework.security.verifiers import StaticTokenVerifier

LOCAL = "http://127.0.0.1"
STATIC = Path(__file__).parent.parent / "apps" / "edge_app" / "public"
ORDER = {"item": "pen", "quantity": 2}


def _agent_app(**settings: Any) -> Any:
    cli = {
        "registry.enabled": False,
        "web.static": [{"path": "/static", "directory": str(STATIC)}],
        **settings,
    }
    return MeshApplication.load("tests.apps.edge_app", cli=cli).build()


@pytest.fixture(scope="module")
def agent() -> Iterator[TestClient]:
    with TestClient(_agent_app(), base_url=LOCAL) as client:
        yield client


def _requests(routes: list[BaseRoute], prefix: str = "") -> Iterator[tuple[str, str]]:
    """(method, path) for every route, path parameters filled in, mounted apps' routes included."""
    for route in routes:
        if isinstance(route, Route):
            path = prefix + route.path.replace("{", "").replace("}", "")
            for method in sorted(route.methods or {"GET"}):
                yield method, path
        elif isinstance(route, Mount):
            inner = getattr(route.app, "routes", None) or getattr(
                getattr(route.app, "app", None), "routes", None
            )
            if inner:
                yield from _requests(list(inner), prefix + route.path)
            else:
                yield "GET", prefix + route.path + "/index.html"


def _surfaces() -> Iterator[tuple[str, Any, list[BaseRoute]]]:
    registry = build_registry_app(RegistryStore(), sweep=False)
    yield "registry", registry, list(registry.routes)
    console = remote_console_app("http://127.0.0.1:9")
    yield "console", console, list(console.routes)
    asgi = _agent_app()
    yield "agent", asgi, [Route(asgi.path, asgi.endpoint, methods=["POST"]), *asgi.web.routes]


@pytest.mark.parametrize("name", ["registry", "console", "agent"])
def test_every_route_of_every_surface_is_behind_the_edge(name: str) -> None:
    """Lists the app's routes and sends each a request from a rebinding host: each is refused with 421, so
    no route is reachable around the edge (a new surface is guarded by being mounted)."""
    app, routes = next((a, r) for n, a, r in _surfaces() if n == name)
    assert edge_of(app) is not None, f"the {name} app is not served behind GuardedEdge"
    requests = sorted(set(_requests(routes)))
    assert len(requests) >= 5
    with TestClient(app, base_url=LOCAL) as client:
        for method, path in requests:
            answer = client.request(method, path, headers={"host": "attacker.example"})
            assert answer.status_code == 421, (method, path, answer.status_code, answer.text[:200])
            assert "Traceback" not in answer.text


def test_a_page_of_another_site_is_refused_by_each_surface(agent: TestClient) -> None:
    foreign = {"origin": "https://attacker.example", "content-type": "application/json"}
    with TestClient(build_registry_app(RegistryStore(), sweep=False), base_url=LOCAL) as registry:
        assert registry.post("/heartbeat", content=b"{}", headers=foreign).status_code == 403
        assert registry.get("/agents", headers=foreign).status_code == 403
    assert agent.post("/api/orders", json=ORDER, headers=foreign).status_code == 403
    # the same page of this machine is let in
    assert (
        agent.post("/api/orders", json=ORDER, headers={"origin": "http://127.0.0.1:3000"}).status_code == 200
    )


def test_bodies_are_json_only_unless_the_route_takes_a_form(agent: TestClient) -> None:
    """A page on another site can post text/plain or a form without asking: those never reach JSON routes."""
    text = json.dumps(ORDER).encode()
    for content_type in (
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ):
        answer = agent.post("/api/orders", content=text, headers={"content-type": content_type})
        assert answer.status_code == 415, (content_type, answer.text)
        assert "application/json" in answer.json()["detail"]
    assert agent.post("/api/orders", content=text).status_code == 415  # no type at all
    assert agent.post("/api/orders", json=ORDER).status_code == 200
    # a route that asks for a form gets it; FastAPI's Form parameters ask for one too
    assert agent.post("/api/feedback", data={"text": "fine"}).json() == {"text": "fine"}
    assert agent.post("/fa/form", data={"text": "fine"}).json() == {"text": "fine"}
    assert agent.post("/fa/json", data={"item": "pen"}).status_code == 415
    assert agent.post("/fa/json", json=ORDER).json() == {"placed": "pen"}
    # A2A's JSON-RPC too
    answer = agent.post("/a2a", content=b'{"jsonrpc":"2.0"}', headers={"content-type": "text/plain"})
    assert (
        answer.status_code == 415 and answer.json()["error"]["code"] == -32600
    )  # A2A's callers read JSON-RPC
    broken = agent.post("/a2a", content=b'{"jsonrpc": NaN}', headers={"content-type": "application/json"})
    assert broken.status_code == 400 and broken.json()["error"]["code"] == -32700
    with TestClient(build_registry_app(RegistryStore(), sweep=False), base_url=LOCAL) as registry:
        heartbeat = registry.post("/heartbeat", content=b"{}", headers={"content-type": "text/plain"})
        assert heartbeat.status_code == 415
        assert heartbeat.json()["status"] == "error"


def test_a_body_over_the_limit_is_refused_while_read_chunked_included() -> None:
    with TestClient(_agent_app(**{"server.max_body_bytes": 1024}), base_url=LOCAL) as client:

        def chunks() -> Iterator[bytes]:
            yield b'{"item": "'
            for _ in range(64):
                yield b"x" * 512
            yield b'", "quantity": 1}'

        answer = client.post("/api/orders", content=chunks(), headers={"content-type": "application/json"})
        assert answer.status_code == 413
        assert "server.max_body_bytes" in answer.json()["detail"]
        declared = client.post("/api/orders", json={"item": "x" * 2000, "quantity": 1})
        assert declared.status_code == 413
        # a served FastAPI app gets the same bound (it used to read any size, and echo it in its 422)
        fastapi = client.post("/fa/json", content=chunks(), headers={"content-type": "application/json"})
        assert fastapi.status_code == 413 and "x" * 100 not in fastapi.text
        assert client.post("/api/orders", json=ORDER).status_code == 200


async def _raw_app_behind_edge(
    app: Any, policy: EdgePolicy, scope_extra: dict[str, Any]
) -> tuple[int, bytes]:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/x",
        "headers": [
            (b"host", b"127.0.0.1:1"),
            (b"content-type", b"application/json"),
            (b"content-length", b"2"),
        ],
        **scope_extra,
    }
    await GuardedEdge(app, policy)(scope, receive, send)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


@pytest.mark.timeout(10)
def test_an_exception_is_one_log_line_and_a_json_500_without_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def failing(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        raise RuntimeError("secret internals")

    policy = EdgePolicy(guard=HostGuard(LOOPBACK_HOSTS, LOOPBACK_ORIGINS))
    with caplog.at_level(logging.INFO, logger="mesh_framework.edge"):
        status, body = asyncio.run(_raw_app_behind_edge(failing, policy, {}))
    assert status == 500
    assert json.loads(body) == {"detail": "the agent failed to answer; see its log"}
    records = [r for r in caplog.records if r.name == "mesh_framework.edge"]
    assert len(records) == 1
    assert "RuntimeError" in records[0].getMessage() and records[0].exc_info is None


@pytest.mark.timeout(10)
def test_a_bearer_token_is_verified_once_and_the_caller_passed_on() -> None:
    verifier = StaticTokenVerifier([("tok-1", ["read"], "reporting-job")])
    seen: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope.get("state", {}).get("access_token"))
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    policy = EdgePolicy(identity=verifier.verify)
    auth = [(b"authorization", b"Bearer tok-1")]
    asyncio.run(_raw_app_behind_edge(app, policy, {"headers": [(b"host", b"127.0.0.1"), *auth]}))
    bad = [(b"authorization", b"Bearer nope")]
    asyncio.run(_raw_app_behind_edge(app, policy, {"headers": [(b"host", b"127.0.0.1"), *bad]}))
    assert seen[0].client_id == "reporting-job"
    assert seen[1] is None


def test_routes_see_the_caller_the_edge_verified() -> None:
    tokens = [{"token": "tok-1", "scopes": ["read"], "client_id": "reporting-job"}]
    with TestClient(_agent_app(**{"auth.tokens": tokens}), base_url=LOCAL) as client:
        answer = client.get("/api/caller", headers={"authorization": "Bearer tok-1"})
        assert answer.json() == {"client_id": "reporting-job"}
        assert client.get("/api/caller").json() == {"client_id": None}


def test_cors_origins_of_the_routes_are_let_in() -> None:
    cors = {"web.cors.allow_origins": ["https://shop.example"], "web.cors.allow_methods": ["POST"]}
    with TestClient(_agent_app(**cors), base_url=LOCAL) as client:
        allowed = client.post("/api/orders", json=ORDER, headers={"origin": "https://shop.example"})
        assert allowed.status_code == 200
        assert allowed.headers["access-control-allow-origin"] == "https://shop.example"
        assert (
            client.post("/api/orders", json=ORDER, headers={"origin": "https://other.example"}).status_code
            == 403
        )
