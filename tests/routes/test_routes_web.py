"""Static folders (`web.static`), CORS (`web.cors`) and routes refused at start-up, on real agents."""

from __future__ import annotations

import json

import httpx2
import pytest

from mesh_framework import MeshApplication, WiringError
from tests.agents import run_agent, run_cli

pytestmark = pytest.mark.timeout(60)

STATIC = {"MESH_WEB__STATIC": json.dumps([{"path": "/", "directory": "static"}])}
CORS = {
    "MESH_WEB__CORS__ALLOW_ORIGINS": json.dumps(["http://localhost:3000"]),
    "MESH_WEB__CORS__ALLOW_METHODS": json.dumps(["GET", "POST"]),
    "MESH_WEB__CORS__ALLOW_HEADERS": json.dumps(["content-type"]),
}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def test_a_static_folder_is_served_after_the_routes_and_beside_mcp() -> None:
    with run_agent("tests.apps.routes_app", env=STATIC) as agent, httpx2.Client(trust_env=False) as http:
        page = http.get(agent.base_url + "/")
        assert page.status_code == 200 and "<title>webby</title>" in page.text
        assert page.headers["content-type"].startswith("text/html")
        script = http.get(agent.base_url + "/app.js")
        assert "fetch(" in script.text
        assert http.get(agent.base_url + "/api/hello/ada").json() == {"greeting": "Hello ada!"}
        assert http.get(agent.base_url + "/health").status_code == 200
        assert http.get(agent.base_url + "/nothing.css").status_code == 404
        tools = http.post(agent.mcp_url, json=LIST_TOOLS, headers=MCP_HEADERS).text
        assert '"upper"' in tools


def test_a_static_folder_that_does_not_exist_stops_start_up() -> None:
    env = {"MESH_WEB__STATIC": json.dumps([{"path": "/ui", "directory": "no-such-folder"}])}
    result = run_cli(["run", "tests.apps.routes_app", "--port", "0"], env=env)
    assert result.returncode != 0
    assert "web.static[0].directory = 'no-such-folder'" in result.stderr
    assert "Traceback" not in result.stderr


def test_cors_answers_preflights_and_marks_answers_when_configured() -> None:
    with run_agent("tests.apps.routes_app", env=CORS) as agent, httpx2.Client(trust_env=False) as http:
        preflight = http.options(
            agent.base_url + "/api/items",
            headers={
                "origin": "http://localhost:3000",
                "access-control-request-method": "POST",
                "access-control-request-headers": "content-type",
            },
        )
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == "http://localhost:3000"
        assert "POST" in preflight.headers["access-control-allow-methods"]
        answer = http.get(agent.base_url + "/api/hello/ada", headers={"origin": "http://localhost:3000"})
        assert answer.headers["access-control-allow-origin"] == "http://localhost:3000"
        other = http.get(agent.base_url + "/api/hello/ada", headers={"origin": "http://evil.example"})
        assert "access-control-allow-origin" not in other.headers
        # the MCP endpoint never passes through the middleware
        mcp = http.post(
            agent.mcp_url, json=LIST_TOOLS, headers={**MCP_HEADERS, "origin": "http://localhost:3000"}
        )
        assert "access-control-allow-origin" not in mcp.headers


def test_cors_is_off_by_default() -> None:
    with run_agent("tests.apps.routes_app") as agent, httpx2.Client(trust_env=False) as http:
        answer = http.get(agent.base_url + "/api/hello/ada", headers={"origin": "http://localhost:3000"})
        assert answer.status_code == 200
        assert "access-control-allow-origin" not in answer.headers
        preflight = http.options(
            agent.base_url + "/api/items",
            headers={"origin": "http://localhost:3000", "access-control-request-method": "POST"},
        )
        assert preflight.status_code == 405


def test_routes_the_framework_cannot_serve_stop_start_up_all_at_once() -> None:
    with pytest.raises(WiringError) as raised:
        MeshApplication.load("tests.apps.routes_bad", environ={})
    problems = "\n".join(raised.value.problems)
    assert len(raised.value.problems) == 7
    assert "route GET /items/{item_id}: path parameter(s) 'item_id' have no function parameter" in problems
    assert "route GET /context: parameter 'ctx': a ToolContext is not injected into routes" in problems
    assert (
        "route GET /get-body: parameter 'item' is a JSON body, which a GET request does not carry" in problems
    )
    assert "route GET /numbers: returns a stream of int; only Stream[str] is supported" in problems
    assert "the route declares only 1 dependency; add its capability to @mesh_route(dependencies" in problems
    assert "route POST /same: POST:/same is already served by tests.apps.routes_bad.first" in problems
    assert "tests.apps.routes_bad.api: route /fa: Bean(NotAComponent): no component of type" in problems


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"path": "api"}, "must start with '/'"),
        ({"path": "/x", "methods": "GET"}, "non-empty list"),
        ({"path": "/x", "methods": ["FETCH"]}, "unknown"),
    ],
)
def test_mesh_route_refuses_bad_arguments(kwargs: dict[str, object], message: str) -> None:
    from mesh_framework import mesh_route

    with pytest.raises(ValueError, match=message):
        mesh_route(**kwargs)  # type: ignore[arg-type]


def test_a_body_over_the_limit_is_refused_with_413() -> None:
    env = {"MESH_SERVER__MAX_BODY_BYTES": "1024"}
    with run_agent("tests.apps.routes_app", env=env) as agent, httpx2.Client(trust_env=False) as http:
        big = {"name": "x" * 5000, "quantity": 1}
        refused = http.post(agent.base_url + "/api/items", json=big)
        assert refused.status_code == 413
        assert "server.max_body_bytes" in refused.json()["detail"]
        small = http.post(agent.base_url + "/api/items", json={"name": "pen", "quantity": 1})
        assert small.status_code == 200
