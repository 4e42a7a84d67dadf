"""`mesh gateway` serving an mcp-mesh 3.8 agent: MCP Mesh's own Python agent registers on our registry and
its tool is listed and called through the gateway with the MCP SDK client.

Installed by `scripts/install-mcp-mesh.sh` (the test command runs it)."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.agents import run_mesh, run_registry, wait_until
from tests.interop.mcp_mesh import AGENTS_DIR, run_mesh_python_agent

pytestmark = pytest.mark.timeout(120)


async def test_an_mcp_mesh_agent_on_our_registry_is_served_by_the_gateway() -> None:
    with run_registry(0, "--timeout", "30") as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
        with (
            run_mesh_python_agent(AGENTS_DIR / "adder.py", registry.base_url),
            run_mesh(["gateway", "--port", "0"], env=env) as gateway,
        ):
            wait_until(lambda: "1 agent(s)" in gateway.text(), timeout=30)
            async with Client(gateway.mcp_url, mode="auto") as client:
                [tool] = (await client.list_tools()).tools
                assert tool.name == "add"
                assert tool.description == "Add two integers."
                assert set(tool.input_schema["properties"]) == {"a", "b"}  # from mcp-mesh's heartbeat
                answer = await client.call_tool("add", {"a": 2, "b": 3})
    assert answer.is_error is False
    assert answer.content[0].text == "5"  # type: ignore[union-attr]
