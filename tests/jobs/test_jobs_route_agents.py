"""The framework's job tools (`__mesh_job_*`, `get_server_status`) are served where jobs can run: an agent
of web routes only (registered as `api`, as MCP Mesh's route apps) has none unless `jobs.serve_tools` says
so, while an agent with tools of its own keeps them (real processes on a registry)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.agents import AgentProcess, loopback, run_agent, run_registry, wait_until
from tests.mesh.test_mesh_integration import mesh_env
from tests.routes.test_routes import registered

pytestmark = pytest.mark.timeout(90)

JOB_TOOLS = {"__mesh_job_status", "__mesh_job_result", "__mesh_job_cancel", "get_server_status"}


def listed(agent: AgentProcess) -> set[str]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    response = loopback.post(agent.mcp_url, json=body, headers=headers, timeout=10)
    return {tool["name"] for tool in response.json()["result"]["tools"]}


def entry_of(registry: AgentProcess, name: str) -> dict[str, Any]:
    found: dict[str, Any] = wait_until(lambda: registered(registry, name), timeout=20)  # type: ignore[assignment]
    return found


def capabilities(entry: dict[str, Any]) -> set[str]:
    return {c["function_name"] for c in entry["capabilities"]}


def test_a_route_only_agent_serves_no_job_tools_and_a_tool_agent_does() -> None:
    with run_registry() as registry:
        env = mesh_env(registry.base_url)
        with (
            run_agent("tests.apps.routes_api_app", env=env) as gateway,
            run_agent("tests.apps.routes_app", env=env) as webby,
        ):
            api = entry_of(registry, "web-gateway")
            assert api["agent_type"] == "api"
            assert not capabilities(api) & JOB_TOOLS
            assert not listed(gateway) & JOB_TOOLS
            tools = entry_of(registry, "webby")
            assert tools["agent_type"] == "mcp_agent"
            assert capabilities(tools) >= JOB_TOOLS and listed(webby) >= JOB_TOOLS


def test_serve_tools_true_serves_them_on_a_route_only_agent() -> None:
    with run_registry() as registry:
        env = mesh_env(registry.base_url, MESH_JOBS__SERVE_TOOLS="true")
        with run_agent("tests.apps.routes_api_app", env=env) as gateway:
            api = entry_of(registry, "web-gateway")
            assert api["agent_type"] == "api"  # the job tools are the framework's, not tools of its own
            assert capabilities(api) >= JOB_TOOLS and listed(gateway) >= JOB_TOOLS
