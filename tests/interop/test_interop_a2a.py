"""A2A with the real MCP Mesh 3.8 on its Go registry, both ways: an mcp-mesh `@mesh.a2a_consumer` calls our
skill in MCP Mesh's dialect (with its bearer token); our `A2aClient` calls an mcp-mesh `mesh.a2a.mount`
surface, by URL and found through the registry's `GET /a2a/agents`; the registry lists our surfaces.

Both tests share one mesh (`a2a_mesh`): the registry, mcp-mesh's A2A app and our agent, which serves the
skills the first test's mcp-mesh consumer calls and calls the mcp-mesh surface in the second."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.agents import AgentProcess, loopback, run_agent
from tests.agents import wait_until as wait_for
from tests.interop.mcp_mesh import (
    AGENTS_DIR,
    LOOPBACK,
    MESH_PYTHON,
    MeshRegistry,
    _spawn,
    _stop,
    free_port,
    ours,
    registry_agents,
    run_mesh_python_agent,
    run_mesh_registry,
)

pytestmark = pytest.mark.timeout(120)


@contextlib.contextmanager
def mesh_a2a_app(registry: MeshRegistry, port: int) -> Iterator[str]:
    """mcp-mesh's `a2a_echo` FastAPI app under uvicorn; yields its base URL once the surface answers."""
    env = {
        "MCP_MESH_REGISTRY_URL": registry.url,
        "MCP_MESH_AGENT_NAME": "mesh-echo-a2a",
        "MCP_MESH_HTTP_HOST": LOOPBACK,
        "MCP_MESH_HTTP_PORT": str(port),
        "MCP_MESH_HEALTH_INTERVAL": "1",
        "PYTHONUNBUFFERED": "1",
        "PATH": str(Path(MESH_PYTHON).parent) + ":/usr/bin:/bin",
    }
    argv = [str(MESH_PYTHON), "-m", "uvicorn", "a2a_echo:app", "--host", LOOPBACK, "--port", str(port)]
    proc, drain = _spawn(argv, env, AGENTS_DIR, "a2a_echo")
    base = f"http://{LOOPBACK}:{port}"
    try:

        def card() -> Any:
            if proc.poll() is not None:
                raise RuntimeError(f"a2a_echo exited:\n{drain.text()[-3000:]}")
            with contextlib.suppress(httpx2.TransportError):
                answer = loopback.get(base + "/agents/echo/.well-known/agent.json", timeout=5)
                return answer.json() if answer.status_code == 200 else None
            return None

        wait_for(card, timeout=30)
        yield base
    finally:
        _stop(proc, drain, 10.0)


def call(endpoint: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    answer = loopback.post(
        endpoint, json=body, headers={"Accept": "application/json, text/event-stream"}, timeout=30
    ).json()["result"]
    return answer  # type: ignore[no-any-return]


@dataclass
class A2aMesh:
    registry: MeshRegistry
    surface: str  # mcp-mesh's A2A surface (skill `echo-text`)
    ours: AgentProcess  # tests.apps.a2a_app: skills `echo`, `words`; peers `echo` and `words` at `surface`


@pytest.fixture(scope="module")
def a2a_mesh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[A2aMesh]:
    port = free_port()
    prefix = {"MCP_MESH_PUBLIC_URL_PREFIX": f"http://{LOOPBACK}:{port}"}  # the registry stamps public URLs
    with (
        run_mesh_registry(tmp_path_factory.mktemp("registry"), env=prefix) as registry,
        mesh_a2a_app(registry, port) as mesh_app,
    ):
        surface = mesh_app + "/agents/echo"
        wait_for(lambda: loopback.get(registry.url + "/a2a/agents", timeout=5).json()["surfaces"], timeout=20)
        env = ours(registry, MESH_A2A__PEERS__ECHO__URL=surface, MESH_A2A__PEERS__WORDS__URL=surface)
        with run_agent("tests.apps.a2a_app", env=env) as running:
            yield A2aMesh(registry, surface, running)


def test_an_mcp_mesh_a2a_consumer_calls_our_skill_and_the_registry_lists_our_surfaces(
    a2a_mesh: A2aMesh,
) -> None:
    registry, skills = a2a_mesh.registry, a2a_mesh.ours
    mine: Any = wait_for(
        lambda: next((a for a in registry_agents(registry) if a.get("name") == "a2a-agent"), None),
        timeout=20,
    )
    # an MCP agent that also serves and calls A2A (MCP Mesh lists only a2a-typed agents in /a2a/agents)
    assert (mine["agent_type"], mine["a2a_producer"], mine["a2a_consumer"]) == ("mcp_agent", True, True)
    urls = {"A2A_URL": skills.base_url + "/a2a/echo", "A2A_WORDS_URL": skills.base_url + "/a2a/words"}
    with run_mesh_python_agent(AGENTS_DIR / "a2a_bridge.py", registry, env=urls) as bridge:
        answer = bridge.call_tool("echo_bridge", {"text": "via-bridge"})["result"]
        assert answer["content"][0]["text"] == "completed:echo:via-bridge"
        streamed = bridge.call_tool("words_bridge", {"text": "a b c"})["result"]
        assert streamed["content"][0]["text"] == "a |b |c "


def test_our_client_calls_an_mcp_mesh_a2a_surface_by_url_and_through_the_registry(a2a_mesh: A2aMesh) -> None:
    registry, surface, consumer = a2a_mesh.registry, a2a_mesh.surface, a2a_mesh.ours
    answer = call(consumer.mcp_url, "ask_peer", {"text": "hi"})
    assert answer["content"][0]["text"] == 'completed:{"echo": "mesh:hi"}', answer
    found = call(consumer.mcp_url, "ask_registry_peer", {"text": "found"})
    assert found["content"][0]["text"] == 'completed:{"echo": "mesh:found"}', found
    streamed = call(consumer.mcp_url, "stream_peer", {"text": "s"})  # tasks/sendSubscribe
    assert streamed["content"][0]["text"] == '{"echo": "mesh:s"}', streamed
    listed = loopback.get(registry.url + "/a2a/agents", timeout=5).json()["surfaces"]
    assert [(s["skill_id"], s["public_url"]) for s in listed] == [("echo-text", surface)]
