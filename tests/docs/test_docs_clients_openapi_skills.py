"""docs/clients.md's OpenAPI and skills sections as written: their titled blocks make a project (an agent
serving a pets service's operations and a skill), run as a real process beside a registry, the service and
`mesh gateway`. Through the gateway, the MCP SDK's client lists and calls the operations, and is told the
gateway serves no skills; the agent's own endpoint serves the skill as the page shows it."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from mcp import Client

from tests.agents import loopback

from ..agents import AgentProcess, run_agent, run_mesh, run_registry, wait_until
from ..docs_examples import page_blocks, section
from ..mcp_servers import free_port, serve

pytestmark = pytest.mark.timeout(120)

PAGE = Path(__file__).resolve().parents[2] / "docs" / "clients.md"
SECTIONS = ["OpenAPI services as tools", "Agent Skills"]
HEADERS = {"Accept": "application/json, text/event-stream"}


def written(project: Path) -> dict[str, str]:
    """Write the sections' titled blocks into `project`; the files, by title."""
    text = PAGE.read_text()
    files = {b.title: b.code for name in SECTIONS for b in page_blocks(section(text, name)) if b.title}
    for title, code in files.items():
        (project / title).parent.mkdir(parents=True, exist_ok=True)
        (project / title).write_text(code)
    return files


@pytest.fixture(scope="module")
def mesh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, AgentProcess]]:
    project = tmp_path_factory.mktemp("clients_page")
    assert set(written(project)) == {
        "pet_desk/__init__.py",
        "config/application.yaml",
        "pet_desk/skills/adopting/SKILL.md",
    }
    port = free_port()
    with contextlib.ExitStack() as stack:
        stack.enter_context(serve([sys.executable, "-m", "tests.servers.openapi_service", str(port)], port))
        registry = stack.enter_context(run_registry())
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "PETS_URL": f"http://127.0.0.1:{port}"}
        agent = stack.enter_context(run_agent("pet_desk", env=env, cwd=project))
        gateway = stack.enter_context(run_mesh(["gateway", "--port", "0"], env=env))
        yield {"agent": agent, "gateway": gateway}


def rpc(url: str, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """One handshake-era stateless JSON-RPC request."""
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    answer: dict[str, Any] = loopback.post(url, json=body, headers=HEADERS, timeout=10).json()
    return answer


def test_the_page_s_settings_are_an_openapi_entry_of_openapi_md_s_keys() -> None:
    [settings] = [b for b in page_blocks(section(PAGE.read_text(), SECTIONS[0])) if b.kind == "yaml"]
    [entry] = yaml.safe_load(settings.code)["mcp"]["openapi"]
    reference = PAGE.with_name("openapi.md").read_text()
    [documented] = yaml.safe_load(page_blocks(reference)[0].code)["mcp"]["openapi"]
    assert set(entry) <= set(documented)


async def test_the_gateway_lists_and_calls_the_service_s_operations(mesh: dict[str, AgentProcess]) -> None:
    gateway = mesh["gateway"].mcp_url

    def listed() -> set[str]:
        return {t["name"] for t in rpc(gateway, "tools/list")["result"]["tools"]}

    assert wait_until(lambda: {"get_pet", "create_pet"} <= listed(), timeout=30), listed()
    assert "explode" not in listed()  # the page's exclude_tags: [admin]
    async with Client(gateway, mode="2026-07-28") as client:
        pet = await client.call_tool("get_pet", {"pet_id": 1})
        assert pet.is_error is False
        assert pet.structured_content == {"id": 1, "name": "Rex", "kind": "dog"}
        lost = await client.call_tool("get_pet", {"pet_id": 7})
        assert lost.is_error is True
        text = str(getattr(lost.content[0], "text", ""))
        assert text.startswith("pets: GET http://127.0.0.1:")
        assert text.endswith('/pets/7 answered HTTP 404 Not Found: {"detail":"no pet 7"}')


def test_skills_come_from_the_agent_not_the_gateway(mesh: dict[str, AgentProcess]) -> None:
    refused = rpc(mesh["gateway"].mcp_url, "skills/list")
    assert "result" not in refused and refused["error"]["code"] == -32601
    [skill] = rpc(mesh["agent"].mcp_url, "skills/list")["result"]["skills"]
    assert skill["uri"] == "skill://adopting/SKILL.md"
    assert skill["frontmatter"] == {
        "name": "adopting",
        "description": "Help someone choose a pet of the shelter and adopt it",
    }
    read = rpc(mesh["agent"].mcp_url, "resources/read", {"uri": skill["uri"]})["result"]
    assert "Call `list_pets`" in read["contents"][0]["text"]
