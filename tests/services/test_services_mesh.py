"""Service interfaces between real agent processes through our registry: a consumer's service methods
and a route's service parameter reach a provider agent, follow it as it comes and goes, and fail clearly
when a method has no provider or the provider's answer does not fit the method's return type."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from tests.agents import AgentProcess, loopback, run_agent, run_registry, wait_until
from tests.mesh.test_mesh_integration import call, text

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(scope="module")
def mesh() -> Iterator[tuple[dict[str, str], AgentProcess]]:
    with run_registry() as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MCP_MESH_HEALTH_INTERVAL": "1"}
        with run_agent("tests.apps.services_app", env=env) as consumer:
            yield env, consumer


def _route(agent: AgentProcess, path: str) -> httpx2.Response:
    return loopback.get(agent.base_url + path, timeout=10)


def test_before_a_provider_the_tool_and_the_route_refuse_naming_the_capability(
    mesh: tuple[dict[str, str], AgentProcess],
) -> None:
    _env, consumer = mesh
    refused = call(consumer, "inspect_service", {})
    assert refused["isError"] and "(required by MediaService.caption, parameter 'media')" in text(refused)
    answer = _route(consumer, "/caption?text=cat")
    assert answer.status_code == 503
    assert answer.json() == {"error": "dependency_unavailable", "capability": "media.caption"}


def test_methods_reach_the_provider_agent_and_follow_it(mesh: tuple[dict[str, str], AgentProcess]) -> None:
    env, consumer = mesh
    with run_agent("tests.apps.services_provider_app", env=env):

        def processed() -> dict[str, Any] | None:
            result = call(consumer, "process_media", {"text": "cat"})
            return None if result["isError"] else result

        result: dict[str, Any] = wait_until(processed, timeout=20)  # type: ignore[assignment]
        assert result["structuredContent"] == {
            "caption": "a picture of cat",
            "confidence": 0.9,
            "plain": "a picture of cat",
        }
        inspected = call(consumer, "inspect_service", {})
        assert inspected["structuredContent"] == {
            "is_media_service": True,
            "caption_type": "Caption",
            "confidence": 0.9,
        }
        answer = _route(consumer, "/caption?text=dog")
        assert answer.status_code == 200 and answer.json() == {"text": "a picture of dog", "confidence": 0.9}
        # the provider serves no media.transcribe: the optional method says so when called
        missing = call(consumer, "transcribe", {"text": "cat"})
        assert missing["isError"] and text(missing) == (
            "ServiceUnavailable: MediaService.transcribe cannot be called: no agent currently provides "
            "'media.transcribe' (optional method)"
        )
        # min_available=2 with one of two methods resolved
        floor = call(consumer, "thumbnail", {"text": "cat"})
        assert "1/2 method(s) resolved, below its min_available=2" in text(floor)
        # an answer without `confidence` does not fit Caption
        broken = call(consumer, "broken_caption", {"text": "cat"})
        assert broken["isError"]
        assert "Captions.caption: the answer of 'media.broken_caption' does not match Caption: " in text(
            broken
        )
        assert "confidence: Field required" in text(broken) and "Traceback" not in text(broken)
    # the provider stopped (it unregisters): the same service object sees its slots emptied
    refused: dict[str, Any] = wait_until(  # type: ignore[assignment]
        lambda: (r := call(consumer, "inspect_service", {}))["isError"] and r, timeout=20
    )
    assert "(required by MediaService.caption, parameter 'media')" in text(refused)
