"""Header propagation across agents: only allowlisted headers travel on, as MCP Mesh's rule says.

`front` forwards what its allowlist names to `back`, whose tool answers with what it received; `back`
lists more names than `front`, so anything `front` should not forward would show up there.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

from mesh_framework.config.loader import load_settings
from mesh_framework.errors import ConfigError
from mesh_framework.mesh.http_pool import build_http_client
from mesh_framework.mesh.transport import McpTransport, RemoteError
from mesh_framework.propagation import HeaderAllowlist, budget_deadline, propagating
from tests.agents import AgentProcess, loopback, run_agent, run_registry, wait_until

FRONT_ALLOWS = "X-Tenant-*, x-request-id"
BACK_ALLOWS = "x-tenant-*,x-request-id,authorization,x-other,x-mesh-job-id"


@pytest.fixture(scope="module")
def chain() -> Iterator[AgentProcess]:
    with run_registry(0) as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MCP_MESH_HEALTH_INTERVAL": "0.5"}
        with (
            run_agent(
                "tests.apps.propagation_app.back", env={**env, "MCP_MESH_PROPAGATE_HEADERS": BACK_ALLOWS}
            ),
            run_agent(
                "tests.apps.propagation_app", env={**env, "MCP_MESH_PROPAGATE_HEADERS": FRONT_ALLOWS}
            ) as front,
        ):
            wait_until(lambda: not _relay(front, {}).get("isError"), timeout=15)
            yield front


def _relay(agent: AgentProcess, headers: dict[str, str], arguments: dict[str, Any] | None = None) -> Any:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "relay", "arguments": arguments or {}},
    }
    response = loopback.post(
        agent.mcp_url,
        json=body,
        headers={"Accept": "application/json, text/event-stream", **headers},
        timeout=15,
    )
    return response.json()["result"]


def _seen(
    agent: AgentProcess, headers: dict[str, str], arguments: dict[str, Any] | None = None
) -> dict[str, str]:
    result = _relay(agent, headers, arguments)
    assert not result["isError"], result
    return dict(result["structuredContent"])


def test_only_allowlisted_headers_reach_the_next_agent(chain: AgentProcess) -> None:
    seen = _seen(
        chain,
        {
            "X-Tenant-Id": "acme",
            "x-tenant-plan": "gold",
            "X-Request-Id": "r-1",
            "Authorization": "Bearer secret",
            "X-Other": "o",
            "X-Mesh-Job-Id": "job-1",
        },
    )
    assert seen["x-tenant-id"] == "acme"
    assert seen["x-tenant-plan"] == "gold"
    assert seen["x-request-id"] == "r-1"
    assert "authorization" not in seen  # never forwarded unless front's allowlist names it
    assert "x-other" not in seen
    assert "x-mesh-job-id" not in seen  # a dispatch header never travels on


def test_the_call_budget_always_travels_and_only_shrinks(chain: AgentProcess) -> None:
    # what is left of it: the time spent at front is taken off
    assert 6 < float(_seen(chain, {"X-Mesh-Timeout": "7"})["x-mesh-timeout"]) < 7
    # front's own timeout (tools.timeout, 30 s) caps a larger inbound budget
    assert _seen(chain, {"X-Mesh-Timeout": "600"})["x-mesh-timeout"] == "30"


def test_mesh_headers_argument_is_filtered_and_http_headers_win(chain: AgentProcess) -> None:
    seen = _seen(
        chain,
        {"X-Tenant-Id": "from-http"},
        {"_mesh_headers": {"x-tenant-id": "from-args", "X-Tenant-Region": "eu", "authorization": "Bearer s"}},
    )
    assert seen["x-tenant-id"] == "from-http"
    assert seen["x-tenant-region"] == "eu"
    assert "authorization" not in seen


def test_nothing_is_forwarded_outside_a_call(chain: AgentProcess) -> None:
    seen = _seen(chain, {})
    assert set(seen) == {"x-mesh-timeout"}


def test_allowlist_matching_is_exact_or_prefix_and_case_insensitive() -> None:
    allow = HeaderAllowlist(["X-Tenant-*", "Authorization"])
    assert allow.allows("x-tenant-id") and allow.allows("X-TENANT-") and allow.allows("authorization")
    assert not allow.allows("x-tenant") and not allow.allows("authorization-extra")
    assert allow.allows("x-mesh-timeout") and allow.allows("x-mesh-calling-job-id")
    assert not HeaderAllowlist(["x-mesh-*"]).allows("x-mesh-job-id")
    assert HeaderAllowlist().capture([(b"authorization", b"t"), (b"x-mesh-timeout", b"5")]) == {
        "x-mesh-timeout": "5"
    }


def test_setting_takes_mcp_mesh_env_name_comma_separated() -> None:
    loaded = load_settings(environ={"MCP_MESH_PROPAGATE_HEADERS": " x-a, x-b-* ,"})
    assert loaded.settings.mesh.propagate_headers == ["x-a", "x-b-*"]
    assert loaded.origin_of("mesh.propagate_headers") == "environment variable MCP_MESH_PROPAGATE_HEADERS"


@pytest.mark.parametrize("bad", ["x-*-y", "*", "x a", "x:y"])
def test_a_malformed_pattern_is_a_clear_settings_error(bad: str) -> None:
    with pytest.raises(ConfigError, match=r"mesh\.propagate_headers.*prefix\*"):
        load_settings(environ={"MCP_MESH_PROPAGATE_HEADERS": bad})


async def test_a_spent_budget_sends_nothing_and_a_live_one_sends_what_is_left() -> None:
    """In process, on a real socket: the transport sends what is left of the call's budget (never more than
    its own timeout), and with nothing left it does not send the request at all."""
    heads: list[bytes] = []

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        heads.append(head.lower())
        body = b'{"jsonrpc": "2.0", "id": 1, "result": {}}'
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
                     b"connection: close\r\n\r\n%s" % (len(body), body))  # fmt: skip
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/mcp"
    async with build_http_client() as http:
        transport = McpTransport(http, client_name="t", client_version="1", timeout=30.0)
        spent = r"not sent, the caller's time budget \(X-Mesh-Timeout\) is spent"
        with (
            propagating({"x-mesh-timeout": "1"}, time.monotonic() - 0.01),
            pytest.raises(RemoteError, match=spent),
        ):
            await transport.request(url, "tools/list")
        assert heads == []
        with propagating({"x-mesh-timeout": "5"}, budget_deadline("5")):
            await transport.request(url, "tools/list")
    server.close()
    (head,) = heads
    sent = float(head.split(b"x-mesh-timeout: ")[1].split(b"\r\n")[0])
    assert 4 < sent < 5
    assert head.count(b"x-mesh-timeout") == 1  # the inbound value does not travel beside it
