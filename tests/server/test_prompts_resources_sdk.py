"""Real clients of prompts and resources against a real agent process: the `mcp` SDK's Client in both
protocol eras, our `McpMeshTool` proxy, and `mesh run` refusing a malformed Markdown prompt."""

from __future__ import annotations

import base64
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator

import httpx2
import pytest
from mcp import Client, MCPError
from mcp.types import PromptReference, ResourceTemplateReference

from mesh_framework import McpMeshTool, MeshApplication, ToolExecutionError
from mesh_framework.mesh.proxy import DownEndpoints, InProcessMcpMeshTool, McpMeshToolProxy, Provider
from mesh_framework.mesh.transport import McpTransport
from tests.agents import ROOT, AgentProcess, agent_env, run_agent

MODES = ["2026-07-28", "legacy"]


@pytest.fixture(scope="module")
def agent() -> Iterator[AgentProcess]:
    with run_agent("tests.apps.content_app") as running:
        yield running


@pytest.mark.parametrize("mode", MODES)
async def test_sdk_client_uses_prompts_resources_and_completion(agent: AgentProcess, mode: str) -> None:
    async with Client(agent.mcp_url, mode=mode) as client:
        prompts = await client.list_prompts()
        assert [p.name for p in prompts.prompts] == [
            "triage",
            "greet",
            "flaky",
            "plan_trip",
            "incident_summary",
        ]
        got = await client.get_prompt("greet", {"name": "Ada", "style": "formal"})
        assert got.messages[0].role == "user"
        assert got.messages[0].content.text == "Good day, Ada."  # type: ignore[union-attr]
        summary = await client.get_prompt("incident_summary", {"service": "auth"})
        assert "**auth**" in summary.messages[0].content.text  # type: ignore[union-attr]

        resources = await client.list_resources()
        assert "file:///static/readme.md" in [str(r.uri) for r in resources.resources]
        templates = await client.list_resource_templates()
        assert [t.uri_template for t in templates.resource_templates] == [
            "logs://{service}/{day}",
            "blob://{+path}",
        ]
        logo = await client.read_resource("file:///static/img/logo.png")
        assert base64.b64decode(logo.contents[0].blob)[:4] == b"\x89PNG"  # type: ignore[union-attr]
        logs = await client.read_resource("logs://search/3")
        assert logs.contents[0].text == "search on day 03: 3 errors"  # type: ignore[union-attr]

        done = await client.complete(
            PromptReference(type="ref/prompt", name="triage"), {"name": "service", "value": "b"}
        )
        assert done.completion.values == ["billing", "bookings"]
        reference = ResourceTemplateReference(type="ref/resource", uri="logs://{service}/{day}")
        done = await client.complete(reference, {"name": "service", "value": "s"})
        assert done.completion.values == ["search"]


@pytest.mark.parametrize("mode", MODES)
async def test_sdk_client_gets_clear_errors(agent: AgentProcess, mode: str) -> None:
    async with Client(agent.mcp_url, mode=mode) as client:
        with pytest.raises(MCPError, match=r"missing the required argument\(s\): service"):
            await client.get_prompt("triage", {})
        with pytest.raises(MCPError, match="Unknown prompt 'summary'"):
            await client.get_prompt("summary", {})
        with pytest.raises(MCPError, match="Resource not found: 'logs://search'") as caught:
            await client.read_resource("logs://search")
        assert caught.value.error.code == -32602


@pytest.fixture
async def proxy(agent: AgentProcess) -> AsyncIterator[McpMeshTool]:
    async with httpx2.AsyncClient() as http:
        transport = McpTransport(http, client_name="test", client_version="1")
        provider = Provider(agent_id="content-agent", endpoint=agent.base_url, function_name="ping")
        yield McpMeshToolProxy(transport, capability="ping", provider=provider, down=DownEndpoints(5.0))


async def test_the_mesh_proxy_lists_and_reads_prompts_and_resources(proxy: McpMeshTool) -> None:
    assert await proxy() == "pong"
    assert [p["name"] for p in await proxy.list_prompts()][:2] == ["triage", "greet"]
    prompt = await proxy.get_prompt("triage", {"service": "auth", "minutes": 1})
    assert prompt["messages"][0]["content"]["text"] == "Triage auth (low), looking back 60 seconds."
    assert [r["uri"] for r in await proxy.list_resources()][-1] == "config://app"
    assert [t["uriTemplate"] for t in await proxy.list_resource_templates()] == [
        "logs://{service}/{day}",
        "blob://{+path}",
    ]
    assert await proxy.read_resource("config://app") == [
        {"uri": "config://app", "mimeType": "application/json", "text": '{"mode":"test","replicas":2}'}
    ]


async def test_the_mesh_proxy_raises_the_providers_message(proxy: McpMeshTool) -> None:
    with pytest.raises(ToolExecutionError, match="missing the required argument"):
        await proxy.get_prompt("greet")
    with pytest.raises(ToolExecutionError, match="Resource not found: 'nothing://here'"):
        await proxy.read_resource("nothing://here")


def test_mesh_run_refuses_a_malformed_prompt_file_in_one_line() -> None:
    env = agent_env({"MESH_PROMPTS__FOLDERS": '["broken_prompts"]'})
    command = [sys.executable, "-m", "mesh_framework.cli", "run", "tests.apps.content_app", "--port", "0"]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=False)
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert "broken_prompts/bad.md:3: invalid YAML front matter" in output
    assert "Traceback" not in output


async def test_a_dependency_on_this_same_agent_reaches_its_prompts_in_process() -> None:
    app = MeshApplication.load("tests.apps.content_app", environ={})
    app.build()
    factory = app.container.proxy_factory()
    factory.local_registry = app.container.tools()  # as the mesh runtime does once it joins
    proxy = factory.proxy_for("ping", Provider(app.settings.agent.id, "http://127.0.0.1:9", "ping"))
    assert isinstance(proxy, InProcessMcpMeshTool)
    prompt = await proxy.get_prompt("greet", {"name": "Bo"})
    assert prompt["messages"][0]["content"]["text"] == "Hi Bo!"
    assert (await proxy.read_resource("logs://auth/1"))[0]["text"] == "auth on day 01: 3 errors"
    with pytest.raises(ToolExecutionError, match="Unknown prompt 'nope'"):
        await proxy.get_prompt("nope")
