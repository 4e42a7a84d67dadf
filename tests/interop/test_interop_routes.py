"""Web routes with the real MCP Mesh 3.8: its Go registry, an mcp-mesh FastAPI route app run by uvicorn, an
mcp-mesh tool agent and `meshctl`, both ways, all on loopback.

Our `routes_app` and mcp-mesh's route app run once, on the module's registry, for the two tests that read
them (`route_pair`); the test whose route must find mcp-mesh's `upper` alone runs its own registry."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.agents import loopback, run_agent
from tests.agents import wait_until as wait_for
from tests.interop.mcp_mesh import (
    AGENTS_DIR,
    MeshRegistry,
    meshctl,
    ours,
    registry_agents,
    run_mesh_python_agent,
)
from tests.interop.mesh_routes import MeshRouteApp, run_mesh_route_app

pytestmark = pytest.mark.timeout(120)


def fetch(url: str) -> httpx2.Response:
    return loopback.get(url, timeout=15)


def ok_json(url: str) -> Any:
    try:
        answer = fetch(url)
    except httpx2.TransportError:  # an mcp-mesh app registers before its uvicorn listens
        return None
    return answer.json() if answer.status_code == 200 else None


def agent_named(registry: MeshRegistry, name: str) -> dict[str, Any] | None:
    return next((a for a in registry_agents(registry) if a.get("name") == name), None)


@pytest.fixture(scope="module")
def route_pair(shared_registry: MeshRegistry) -> Iterator[MeshRouteApp]:
    """Our `routes_app` (`webby`: the tool `upper` and routes) and mcp-mesh's route app calling it, on the
    module's registry; yields mcp-mesh's."""
    with (
        run_agent("tests.apps.routes_app", env=ours(shared_registry)),
        run_mesh_route_app("route_gateway", shared_registry, name="mesh-gateway") as gateway,
    ):
        yield gateway


def test_an_mcp_mesh_route_app_calls_our_tool(route_pair: MeshRouteApp) -> None:
    gateway = route_pair
    answer = wait_for(lambda: ok_json(gateway.base_url + "/api/shout?text=hi"), timeout=30)
    assert answer == {"text": "HI"}
    # MCP Mesh's stream routes skip its 503 perimeter: until their own slot resolves they fail in-stream
    expected = b"data: A\n\ndata: B\n\ndata: [DONE]\n\n"
    url = gateway.base_url + "/api/shout-stream?text=a%20b"
    wait_for(lambda: fetch(url).content == expected, timeout=30)


def test_our_route_calls_an_mcp_mesh_tool(registry: MeshRegistry) -> None:
    with (
        run_mesh_python_agent(AGENTS_DIR / "upper.py", registry),
        run_agent("tests.apps.routes_api_app", env=ours(registry)) as gateway,
    ):
        answer: dict[str, str] = wait_for(  # type: ignore[assignment]
            lambda: ok_json(gateway.base_url + "/api/shout?text=hi"), timeout=30
        )
        assert answer["text"] == "HI (mcp-mesh)"
        assert answer["by"].startswith("mesh-upper-")
        stream = fetch(gateway.base_url + "/api/shout-stream?text=a%20b")
        assert stream.content == b"data: A (mcp-mesh)\n\ndata: B (mcp-mesh)\n\ndata: [DONE]\n\n"


def test_the_mcp_mesh_registry_and_meshctl_show_our_route_agents_as_its_own(
    shared_registry: MeshRegistry, route_pair: MeshRouteApp, tmp_path: Path
) -> None:
    registry, theirs = shared_registry, route_pair
    with run_agent("tests.apps.routes_api_app", env=ours(registry)):
        api: dict[str, Any] = wait_for(lambda: agent_named(registry, "web-gateway"), timeout=15)  # type: ignore[assignment]
        mixed: dict[str, Any] = wait_for(lambda: agent_named(registry, "webby"), timeout=15)  # type: ignore[assignment]
        # a route-only agent registers as MCP Mesh's own route app: type api, its routes' dependencies
        # resolved per pseudo-tool "METHOD:/path", which the registry lists as no capability
        assert api["agent_type"] == theirs.agent["agent_type"] == "api"
        routes = {"GET:/api/shout", "GET:/api/shout-stream"}
        for name in ("web-gateway", theirs.agent["name"]):

            def both_routes(name: str = name) -> dict[str, Any] | None:
                agent = agent_named(registry, name) or {}
                found = {r["function_name"] for r in agent.get("dependency_resolutions") or []}
                return agent if routes <= found else None

            agent: dict[str, Any] = wait_for(both_routes, timeout=15)  # type: ignore[assignment]
            assert all(c["name"] for c in agent["capabilities"] or [])
        # tools and routes: an mcp_agent with its tools, whose routes' dependencies resolve the same way
        assert mixed["agent_type"] == "mcp_agent"
        assert "upper" in {c["name"] for c in mixed["capabilities"]}

        def resolved() -> dict[str, Any] | None:
            agent = agent_named(registry, "webby") or {}
            rows = {r["function_name"]: r for r in agent.get("dependency_resolutions") or []}
            row = rows.get("GET:/api/shout") or {}
            return row if row.get("status") == "available" else None

        row: dict[str, Any] = wait_for(resolved, timeout=15)  # type: ignore[assignment]
        assert row["capability"] == "upper" and row["provider_agent_id"] == mixed["id"]
        listed = json.loads(meshctl(["list", "--json"], registry, tmp_path / "home").stdout)
        by_name = {a.get("name"): a for a in listed["agents"]}
        assert by_name["web-gateway"]["agent_type"] == "api"
        assert by_name["webby"]["agent_type"] == "mcp_agent"
