"""The console's routes on a registry with `registry.token`: a client that is not on loopback may call a
tool through `POST /ui/call` when it sends the token (and the page's CSRF token, read from `/ui` as the
page's script does); without it, or with another, it is refused before the agent is reached, and so is
every other console route. Real `mesh registry` and `mesh run` processes;
the remote client is the one a reverse proxy on the registry's host reports (`X-Forwarded-For`), as the
registry's server trusts that header from loopback."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

from mesh_framework.registry import RegistryServer
from tests.agents import loopback, run_agent, run_mesh, wait_until
from tests.page_token import page_headers, token_of

pytestmark = pytest.mark.timeout(120)

TOKEN = "console-registry-token-5678"
REMOTE = {"X-Forwarded-For": "10.1.2.3"}
WITH_TOKEN = {**REMOTE, "Authorization": f"Bearer {TOKEN}"}
WRONG_TOKEN = {**REMOTE, "Authorization": "Bearer not-the-token"}
REQUIRED = "unauthorized: a bearer token is required (registry.token)"
NOT_VALID = "unauthorized: the bearer token is not valid (registry.token)"


def _get(url: str, headers: dict[str, str]) -> httpx2.Response:
    return loopback.get(url, headers=headers, timeout=5)


def _greet_calls(url: str) -> int | None:
    """The calls of the sleeper's `greet` the registry's console has counted (None: none pushed yet)."""
    view = _get(url + "/ui/console", WITH_TOKEN).json()
    return next((t["total_calls"] for t in view["tools"] if t["tool"] == "greet"), None)


def _refused(response: httpx2.Response, message: str) -> None:
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert response.json() == {"status": "error", "message": message}
    assert "\n" not in response.json()["message"] and TOKEN not in response.text


def test_a_remote_client_with_the_token_calls_a_tool_and_one_without_it_is_refused() -> None:
    with run_mesh(
        ["registry", "--port", "0", "--timeout", "120"], env={"MESH_REGISTRY__TOKEN": TOKEN}
    ) as registry:
        url = registry.base_url
        env = {"MCP_MESH_REGISTRY_URL": url, "MESH_REGISTRY__TOKEN": TOKEN}
        with run_agent("tests.apps.console_app.sleeper", env=env) as sleeper:

            def greet_row() -> dict[str, Any] | None:
                tools = _get(url + "/ui/tools", WITH_TOKEN)
                return next((t for t in tools.json()["tools"] if t["tool"] == "greet" and t["healthy"]), None)

            row = wait_until(greet_row, timeout=30)
            assert isinstance(row, dict)

            with httpx2.Client(base_url=url, trust_env=False, timeout=5) as http:
                page = page_headers(http, **WITH_TOKEN)["X-Mesh-Csrf"]

            def call(name: str, headers: dict[str, str]) -> httpx2.Response:
                headers = {**headers, "X-Mesh-Csrf": page}
                body = {"agent_id": row["agent_id"], "tool": "greet", "arguments": {"name": name}}
                return loopback.post(url + "/ui/call", json=body, headers=headers, timeout=30)

            _refused(call("no-token", REMOTE), REQUIRED)
            _refused(call("wrong-token", WRONG_TOKEN), NOT_VALID)
            _refused(call("loopback-no-token", {}), REQUIRED)  # loopback alone is not enough either
            for path in ("/ui/console", "/ui/tools", "/ui/events"):
                _refused(_get(url + path, REMOTE), REQUIRED)
                _refused(_get(url + path, WRONG_TOKEN), NOT_VALID)
                assert _get(url + path, WITH_TOKEN).status_code == 200

            answered = call("remote", WITH_TOKEN)
            assert answered.status_code == 200
            assert answered.headers["content-type"].startswith("application/x-ndjson")
            lines = [json.loads(line) for line in answered.text.splitlines()]
            assert len(lines) == 1, lines
            result = lines[0]["result"]
            assert result["isError"] is False
            assert result["content"][0]["text"] == "hello remote (calm)"

            # The agent counted one call of greet: the refused ones never reached it (they came first,
            # so a push holding the answered call would hold them too).
            assert wait_until(lambda: _greet_calls(url), timeout=15) == 1
            assert TOKEN not in registry.text() + sleeper.text()


async def test_the_forwarded_client_is_not_loopback_to_a_registry_without_a_token() -> None:
    """What makes the test above's client remote: without a token the same request is refused as not
    coming from loopback, and without the header it reaches the route's own checks."""
    async with (
        RegistryServer("127.0.0.1", 0) as registry,
        httpx2.AsyncClient(base_url=registry.url, trust_env=False, timeout=5) as http,
    ):
        body = {"agent_id": "nobody-1", "tool": "greet", "arguments": {}}
        remote = await http.post("/ui/call", json=body, headers=REMOTE)
        assert remote.status_code == 403
        assert remote.json()["message"] == (
            "tools are called from the console only on loopback or with the registry token"
        )
        page = await http.get("/ui")
        local = await http.post("/ui/call", json=body, headers={"X-Mesh-Csrf": token_of(page.text)})
        assert local.status_code == 404 and "nobody-1" in local.json()["message"]
