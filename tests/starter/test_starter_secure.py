"""The starter's `secure` profile (config/application-secure.yaml): a static token is required on the MCP
endpoint, `whoami` tells the caller who it is, and the agents' own calls through the mesh carry the token;
with the default profile `whoami` says no caller is verified."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from mesh_framework import MeshApplication
from mesh_framework.testing import mesh_client

from ..agents import AgentProcess, run_agent, run_cli, run_registry, wait_until

TOKEN = "starter-test-token"
WHOAMI = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}}


@pytest.fixture(scope="module")
def registry() -> Iterator[AgentProcess]:
    with run_registry() as running:
        yield running


@pytest.fixture(scope="module")
def secure(registry: AgentProcess) -> Iterator[AgentProcess]:
    """`STARTER_TOKEN=... mesh run starter_app --profile secure` (and the calculator), in one mesh."""
    env = {"STARTER_TOKEN": TOKEN, "MCP_MESH_REGISTRY_URL": registry.base_url}
    with (
        run_agent("starter_app", "--profile", "secure", env=env) as starter,
        run_agent("starter_app.calculator", "--profile", "secure", env=env) as calculator,
    ):
        wait_until(lambda: "add -> " in calculator.text(), timeout=20)  # the calculator found `add`
        yield starter


def test_a_call_without_a_token_is_refused_with_a_bearer_challenge(secure: AgentProcess) -> None:
    headers = {"Accept": "application/json, text/event-stream"}
    with httpx2.Client(timeout=10, trust_env=False) as http:
        missing = http.post(secure.mcp_url, json=WHOAMI, headers=headers)
        wrong = http.post(secure.mcp_url, json=WHOAMI, headers={**headers, "Authorization": "Bearer nope"})
    metadata = f"{secure.base_url}/.well-known/oauth-protected-resource/mcp"
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"] == f'Bearer resource_metadata="{metadata}"'
    assert missing.json() == {"error": "unauthorized", "error_description": "a bearer token is required"}
    assert wrong.status_code == 401
    assert wrong.headers["www-authenticate"].startswith('Bearer error="invalid_token"')
    assert TOKEN not in missing.text + wrong.text


@pytest.mark.parametrize("mode", ["2026-07-28", "legacy"])
async def test_whoami_answers_the_token_s_client_and_scopes(secure: AgentProcess, mode: str) -> None:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10, trust_env=False)
    transport = streamable_http_client(secure.mcp_url, http_client=http)
    async with http, Client(transport, mode=mode) as client:
        answer = await client.call_tool("whoami", {})
    assert answer.is_error is False
    assert answer.structured_content == {
        "verified": True,
        "client_id": "laptop",
        "subject": None,
        "scopes": ["starter"],
        "note": None,
    }


async def test_without_a_verifier_whoami_says_no_caller_is_verified() -> None:
    app = MeshApplication.load("starter_app", environ={})
    async with mesh_client(app) as client:
        caller = await client.call_ok("whoami", {})
    assert caller["verified"] is False and caller["client_id"] is None and caller["scopes"] == []
    assert "no verified caller" in caller["note"] and "--profile secure" in caller["note"]


def test_mesh_call_with_the_token_and_the_agents_own_calls(
    registry: AgentProcess, secure: AgentProcess
) -> None:
    env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
    refused = run_cli(["call", "whoami"], env=env)
    assert refused.returncode == 1 and "HTTP 401" in refused.stderr
    given = run_cli(["call", "whoami", "--token", TOKEN], env=env)
    assert given.returncode == 0, given.stderr
    assert json.loads(given.stdout)["client_id"] == "laptop"
    # the calculator's tool calls the starter's `add` through the mesh with auth.client_token
    squares = run_cli(["call", "sum_of_squares", "a=3", "b=4", "--token", TOKEN], env=env)
    assert (squares.returncode, squares.stdout, squares.stderr) == (0, "25\n", "")
