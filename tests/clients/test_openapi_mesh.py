"""OpenAPI operations across a real mesh: an agent serving a FastAPI service's operations (`mcp.openapi`)
is called with the MCP SDK's client, and another agent calls one of them as a mesh capability; an error
answer of the service reaches that agent as the tool error it is."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client

from ..agents import AgentProcess, run_agent, run_cli, run_registry, wait_until
from ..mcp_servers import free_port, serve

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def service() -> Iterator[str]:
    port = free_port()
    with serve([sys.executable, "-m", "tests.servers.openapi_service", str(port)], port):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def mesh(service: str) -> Iterator[tuple[dict[str, str], AgentProcess]]:
    with run_registry() as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "PETS_URL": service}
        with (
            run_agent("tests.apps.openapi_app", env=env) as provider,
            run_agent("tests.apps.openapi_caller_app", env=env),
        ):
            yield env, provider


async def test_the_sdk_client_lists_and_calls_the_operations(
    mesh: tuple[dict[str, str], AgentProcess], service: str
) -> None:
    _, provider = mesh
    async with Client(provider.mcp_url) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert tools["get_pet"].description == "One pet by its id"
        assert tools["get_pet"].input_schema["required"] == ["pet_id"]
        pet = await client.call_tool("get_pet", {"pet_id": 1})
        assert pet.is_error is False and pet.structured_content == {"id": 1, "name": "Rex", "kind": "dog"}
        lost = await client.call_tool("get_pet", {"pet_id": 12345})
        assert lost.is_error is True
        assert lost.content[0].text == (  # type: ignore[union-attr]
            f"pets: GET {service}/pets/12345 answered HTTP 404 Not Found: " + '{"detail":"no pet 12345"}'
        )


def test_another_agent_calls_an_operation_as_a_capability(mesh: tuple[dict[str, str], AgentProcess]) -> None:
    env, _ = mesh
    answer: Any = None

    def called() -> bool:
        nonlocal answer
        answer = run_cli(["call", "pet_name", '{"pet_id": 1}'], env=env)
        return answer.returncode == 0

    assert wait_until(called, timeout=30), (answer.stdout, answer.stderr)
    assert answer.stdout.strip() == "Rex"
    # The service's 404 reaches the caller as the provider's tool error.
    failed = run_cli(["call", "pet_name", '{"pet_id": 777}'], env=env)
    assert failed.returncode != 0
    assert "answered HTTP 404 Not Found" in failed.stdout + failed.stderr
    listing = run_cli(["list"], env=env)
    assert "get_pet" in listing.stdout and "create_pet" in listing.stdout
