"""Service interfaces with the real MCP Mesh, both ways, on its Go registry: our service over mcp-mesh
providers (the registry resolves its methods exactly as it resolves an mcp-mesh `@mesh.service` view of
the same shape), and an mcp-mesh view over our providers.

mcp-mesh's view (`mesh-media-view`) runs once for both tests (`mesh_view`): it resolves the `media.*`
methods to mcp-mesh's providers in the first and to ours in the second. Its `media.transcribe` never
resolves, so its settle window (how long a first call waits for a declared dependency) is set short."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.agents import loopback, run_agent
from tests.agents import wait_until as wait_for
from tests.interop.mcp_mesh import (
    AGENTS_DIR,
    MeshAgent,
    MeshRegistry,
    ours,
    registry_agents,
    run_mesh_python_agent,
)
from tests.mesh.test_mesh_integration import call, text

pytestmark = pytest.mark.timeout(150)


def resolutions(shared_registry: MeshRegistry, agent: str, tool: str) -> list[tuple[Any, ...]]:
    """How the registry resolved one tool's dependencies: capability, tags, status, provider's tool."""
    for entry in registry_agents(shared_registry):
        if entry.get("name") == agent:
            return sorted(
                (r["capability"], tuple(r.get("tags") or ()), r["status"], r.get("mcp_tool") or "")
                for r in entry.get("dependency_resolutions") or []
                if r.get("function_name") == tool
            )
    return []


@pytest.fixture(scope="module")
def mesh_view(shared_registry: MeshRegistry) -> Iterator[MeshAgent]:
    """mcp-mesh's `@mesh.service` view over `media.*` (`view_caption`, `view_transcribe`)."""
    settle = {"MCP_MESH_SETTLE_TIMEOUT": "2"}  # mcp-mesh's default, 20 s, is a first call's wait
    with run_mesh_python_agent(AGENTS_DIR / "media_view_consumer.py", shared_registry, settle) as viewer:
        yield viewer


def test_our_service_over_mcp_mesh_providers_resolves_as_an_mcp_mesh_view(
    shared_registry: MeshRegistry, mesh_view: MeshAgent
) -> None:
    with (
        run_mesh_python_agent(AGENTS_DIR / "media_provider.py", shared_registry),
        run_agent("tests.apps.services_app", env=ours(shared_registry)) as consumer,
    ):
        processed: dict[str, Any] = wait_for(  # type: ignore[assignment]
            lambda: (r := call(consumer, "process_media", {"text": "cat"})) and not r["isError"] and r,
            timeout=30,
        )
        assert processed["structuredContent"] == {
            "caption": "mesh sees cat",
            "confidence": 0.75,
            "plain": "mesh sees cat",
        }
        inspected = call(consumer, "inspect_service", {})
        assert inspected["structuredContent"]["caption_type"] == "Caption"
        route = loopback.get(consumer.base_url + "/caption?text=dog", timeout=10)
        assert route.json() == {"text": "mesh sees dog", "confidence": 0.75}
        # match_mode: the registry's schema stage keeps mcp-mesh's caption, whose output fits Caption
        matched = call(consumer, "matched_caption", {"text": "cat"})
        assert matched["structuredContent"] == {"result": "mesh sees cat"}, matched
        missing = call(consumer, "transcribe", {"text": "cat"})
        assert missing["isError"] and "no agent currently provides 'media.transcribe'" in text(missing)

        # the same view, declared by mcp-mesh (view_caption) and by us (inspect_service)
        expected = [
            ("media.caption", ("+fast",), "available", "caption"),
            ("media.thumbnail", (), "available", "thumbnail"),
            ("media.transcribe", (), "unresolved", ""),
        ]
        # mcp-mesh's view may have registered before the providers: its resolutions follow at a heartbeat
        seen: list[list[tuple[Any, ...]]] = [[]]

        def viewed() -> bool:
            seen[0] = resolutions(shared_registry, "mesh-media-view", "view_caption")
            return seen[0] == expected

        try:
            wait_for(viewed, timeout=20)
        except AssertionError:
            assert seen[0] == expected  # what the registry still says
            raise
        assert resolutions(shared_registry, "media-consumer", "inspect_service") == expected
        # declared dependency first, then the view's methods: the duplicate caption edge is kept
        assert resolutions(shared_registry, "media-consumer", "process_media") == [
            ("media.caption", (), "available", "caption"),
            *expected,
        ]


def test_an_mcp_mesh_view_over_our_providers(shared_registry: MeshRegistry, mesh_view: MeshAgent) -> None:
    viewer = mesh_view
    with run_agent("tests.apps.services_provider_app", env=ours(shared_registry)):

        def captioned() -> dict[str, Any] | None:
            result = viewer.call_tool("view_caption", {"text": "cat"}).get("result") or {}
            return None if result.get("isError") else result

        result: dict[str, Any] = wait_for(captioned, timeout=40)  # type: ignore[assignment]
        value = result.get("structuredContent") or json.loads(result["content"][0]["text"])
        assert value == {
            "caption": {"text": "a picture of cat", "confidence": 0.9},
            "thumbnail": "thumb(cat,8)",
        }
        refused = viewer.call_tool("view_transcribe", {"text": "cat"})["result"]
        assert refused["isError"]
        assert json.loads(refused["content"][0]["text"]) == {
            "error": "dependency_unavailable",
            "capability": "media.transcribe",
        }
