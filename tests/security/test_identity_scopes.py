"""Scopes on every surface a caller reaches, against tokens of a real authorization server
(node-oidc-provider, tests/servers/oidc): a route answers 401 without a token and 403 `insufficient_scope`
without its scopes, with an RFC 6750 challenge, as the MCP endpoint does for a tool; a prompts/get and a
resources/read without the prompt's or resource's scopes are refused as a tool call is, while the lists
still show them; the protected-resource metadata lists the union of every surface's scopes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from mesh_framework import MeshApplication, WiringError
from tests.agents import AgentProcess, loopback, run_agent
from tests.servers.oidc_server import NODE, OidcServer, oidc_server

pytestmark = pytest.mark.timeout(120)
assert NODE  # the server runs under Node (tests/conftest.py classifies the module by this name)

RESOURCE = "urn:example:books"
ACCEPT = {"Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def oauth() -> Iterator[OidcServer]:
    with oidc_server(ttl=60, scopes="books reports audit") as server:
        yield server


@pytest.fixture(scope="module")
def agent(oauth: OidcServer) -> Iterator[AgentProcess]:
    env = {
        "MESH_AUTH__JWKS_URL": oauth.jwks_url,
        "MESH_AUTH__ISSUER": oauth.issuer,
        "MESH_AUTH__AUDIENCE": RESOURCE,
        "MESH_REGISTRY__ENABLED": "false",
    }
    with run_agent("tests.apps.identity_scoped_app", env=env) as running:
        yield running


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def rpc(agent: AgentProcess, method: str, params: dict[str, Any], token: str | None) -> httpx2.Response:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return loopback.post(agent.mcp_url, json=body, headers={**ACCEPT, **bearer(token)}, timeout=15)


def challenge(response: httpx2.Response) -> str:
    return response.headers["www-authenticate"]


def test_a_route_with_scopes_challenges_as_the_endpoint_does_for_a_tool(
    oauth: OidcServer, agent: AgentProcess
) -> None:
    url = agent.base_url + "/reports"
    metadata = f'resource_metadata="{agent.base_url}/.well-known/oauth-protected-resource"'
    anonymous = loopback.get(url, timeout=15)
    assert anonymous.status_code == 401
    assert challenge(anonymous) == f'Bearer scope="books reports", {metadata}'
    assert anonymous.json()["error"] == "unauthorized"

    reader = oauth.user_token("alice", RESOURCE, scope="books")
    short = loopback.get(url, headers=bearer(reader), timeout=15)
    assert short.status_code == 403
    assert challenge(short) == (
        'Bearer error="insufficient_scope", error_description="the access token lacks scope(s) reports", '
        f'scope="books reports", {metadata}'
    )
    assert short.json() == {
        "error": "insufficient_scope",
        "error_description": "the access token lacks scope(s) reports",
    }

    forged = loopback.get(url, headers=bearer(reader[:-4] + "AAAA"), timeout=15)
    assert forged.status_code == 401 and 'error="invalid_token"' in challenge(forged)

    granted = oauth.user_token("alice", RESOURCE, scope="books reports")
    answer = loopback.get(url, headers=bearer(granted), timeout=15)
    assert answer.status_code == 200 and answer.json() == {"for": "alice"}
    assert loopback.get(agent.base_url + "/open", timeout=15).json() == {"open": True}  # no scopes: open


def test_a_prompt_or_resource_without_its_scopes_is_refused_as_a_tool_call_is(
    oauth: OidcServer, agent: AgentProcess
) -> None:
    reader = oauth.user_token("alice", RESOURCE, scope="books")
    tool = rpc(
        agent, "tools/call", {"name": "ledger", "arguments": {}}, oauth.user_token("bob", RESOURCE, "audit")
    )
    prompt = rpc(agent, "prompts/get", {"name": "audit", "arguments": {"period": "Q1"}}, reader)
    template = rpc(agent, "resources/read", {"uri": "books://2024/05"}, reader)
    for refused, scope in ((tool, "books"), (prompt, "audit"), (template, "audit")):
        assert refused.status_code == 403
        assert challenge(refused).startswith('Bearer error="insufficient_scope"')
        assert f'scope="{scope}"' in challenge(refused)
    assert (
        rpc(agent, "resources/read", {"uri": "books://2024"}, reader).json()["result"]["contents"][0]["text"]
        == "2024 books"
    )
    assert rpc(agent, "prompts/get", {"name": "greet", "arguments": {"name": "x"}}, reader).status_code == 200
    assert rpc(agent, "resources/read", {"uri": "notes://readme"}, reader).status_code == 200
    auditor = oauth.user_token("carol", RESOURCE, scope="audit")
    shown = rpc(agent, "prompts/get", {"name": "audit", "arguments": {"period": "Q1"}}, auditor).json()
    assert shown["result"]["messages"][0]["content"]["text"] == "Audit Q1"
    read = rpc(agent, "resources/read", {"uri": "books://2024/05"}, auditor).json()
    assert read["result"]["contents"][0]["text"] == "2024-05 books"
    assert rpc(agent, "resources/read", {"uri": "books://2024"}, auditor).status_code == 403
    # a batch is refused when any of its messages needs a scope the token lacks
    batch = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "prompts/get",
            "params": {"name": "greet", "arguments": {"name": "x"}},
        },
        {"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "books://2024"}},
    ]
    refused = loopback.post(agent.mcp_url, json=batch, headers={**ACCEPT, **bearer(auditor)}, timeout=15)
    assert refused.status_code == 403 and 'scope="books"' in challenge(refused)


def test_the_lists_show_what_the_token_cannot_use(oauth: OidcServer, agent: AgentProcess) -> None:
    nobody = oauth.user_token("dave", RESOURCE, scope="")
    prompts = rpc(agent, "prompts/list", {}, nobody).json()["result"]["prompts"]
    resources = rpc(agent, "resources/list", {}, nobody).json()["result"]["resources"]
    templates = rpc(agent, "resources/templates/list", {}, nobody).json()["result"]["resourceTemplates"]
    assert {p["name"] for p in prompts} == {"audit", "greet"}
    assert {r["uri"] for r in resources} == {"books://2024", "notes://readme"}
    assert [t["uriTemplate"] for t in templates] == ["books://{year}/{month}"]


def test_the_metadata_lists_every_surface_s_scopes(agent: AgentProcess) -> None:
    document = loopback.get(agent.base_url + "/.well-known/oauth-protected-resource", timeout=15).json()
    assert document["scopes_supported"] == ["audit", "books", "reports"]  # tool, route, prompt, resources


def test_scopes_with_no_verifier_are_a_wiring_error_naming_each_surface() -> None:
    with pytest.raises(WiringError) as raised:
        MeshApplication.load("tests.apps.identity_scoped_unguarded", environ={}).build()
    (problem,) = raised.value.problems
    assert problem.startswith(
        "prompt audit, resource books://2024, route GET /reports declare(s) scopes, but no token verifier"
    )
