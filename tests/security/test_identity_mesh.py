"""Two agents and a real authorization server (node-oidc-provider, tests/servers/oidc): the caller sends its
OAuth client's access token (`auth.client_credentials`) on its mesh calls, the provider verifies it against
the server's JWKS and its tools and routes see the caller (`ctx.access_token`, an `AccessToken` parameter).
A refused token is renewed once, in process, through the authenticated transport."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from mesh_framework.config.settings import AuthSettings, MeshSettings
from mesh_framework.mesh.authenticated import AuthenticatedTransport
from mesh_framework.mesh.transport import McpTransport
from mesh_framework.security.authorization import McpAuthorization, verifier_from_settings
from mesh_framework.security.caller import current_access_token
from mesh_framework.security.outbound import OutboundCredentials
from tests.agents import AgentProcess, loopback, run_agent, run_registry, wait_until
from tests.servers.oidc_server import CLIENT_ID, CLIENT_SECRET, OidcServer, oidc_server

pytestmark = pytest.mark.timeout(120)

RESOURCE = "urn:mesh:identity-test"
ACCEPT = {"Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def oauth() -> Iterator[OidcServer]:
    with oidc_server(ttl=5) as server:
        yield server


def provider_env(oauth: OidcServer) -> dict[str, str]:
    return {
        "MESH_AUTH__JWKS_URL": oauth.jwks_url,
        "MESH_AUTH__ISSUER": oauth.issuer,
        "MESH_AUTH__AUDIENCE": RESOURCE,
    }


def caller_env(oauth: OidcServer) -> dict[str, str]:
    return {
        "MESH_AUTH__CLIENT_CREDENTIALS__ISSUER": oauth.issuer,
        "MESH_AUTH__CLIENT_CREDENTIALS__CLIENT_ID": CLIENT_ID,
        "MESH_AUTH__CLIENT_CREDENTIALS__CLIENT_SECRET": CLIENT_SECRET,
        "MESH_AUTH__CLIENT_CREDENTIALS__SCOPES": "read",
        "MESH_AUTH__CLIENT_CREDENTIALS__RESOURCE": RESOURCE,
    }


def call(agent: AgentProcess, tool: str, token: str | None = None) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": {}}}
    headers = {**ACCEPT, **({"Authorization": f"Bearer {token}"} if token else {})}
    return loopback.post(agent.mcp_url, json=body, headers=headers, timeout=15)


def test_the_caller_s_oauth_client_is_who_the_provider_sees(oauth: OidcServer) -> None:
    with run_registry(0, "--timeout", "3") as registry:
        mesh = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MCP_MESH_HEALTH_INTERVAL": "0.5"}
        with (
            run_agent("tests.apps.identity_provider_app", env={**mesh, **provider_env(oauth)}) as provider,
            run_agent("tests.apps.identity_caller_app", env={**mesh, **caller_env(oauth)}) as caller,
        ):
            before = oauth.token_requests()

            def answered() -> Any:
                result = call(caller, "ask_whoami").json()["result"]
                return None if result["isError"] else result

            result = wait_until(answered, timeout=30)
            assert result["structuredContent"] == {  # type: ignore[index]
                "result": {"client_id": CLIENT_ID, "subject": CLIENT_ID, "audience": [RESOURCE]}
            }
            # one token for the calls above (cached), from the endpoint the issuer's metadata names
            assert oauth.token_requests() == before + 1
            token = oauth.fetch_token(RESOURCE)
            assert call(provider, "scopes_of", token).json()["result"]["structuredContent"] == {
                "result": ["read"]
            }
            assert call(provider, "scopes_of").status_code == 401  # no token: refused at the endpoint
            route = loopback.get(
                provider.base_url + "/whoami", headers={"Authorization": f"Bearer {token}"}, timeout=15
            )
            assert route.json() == {"client_id": CLIENT_ID}
            assert loopback.get(provider.base_url + "/whoami", timeout=15).json() == {"client_id": None}
        assert CLIENT_SECRET not in caller.text() and token not in provider.text()


class Endpoint:
    """An MCP endpoint standing for a provider: answers every call with the caller's client id."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        message = json.loads((await receive())["body"])
        caller = current_access_token()
        result = {"content": [], "structuredContent": {"client_id": caller.client_id if caller else None}}
        body = json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": body})


async def test_a_refused_token_is_renewed_and_the_call_sent_once_more(oauth: OidcServer) -> None:
    url = "http://127.0.0.1/mcp"
    auth = AuthSettings.model_validate(
        {
            "client_credentials": {
                "token_url": oauth.token_url,
                "client_id": CLIENT_ID,
                "client_secret": CLIENT_SECRET,
                "resource": RESOURCE,
            }
        }
    )
    async with httpx2.AsyncClient() as token_http:
        credential = OutboundCredentials(auth, lambda: token_http).for_dependency("whoami")
        assert credential is not None
        await credential.authorization(url)  # a token signed with the key about to be retired, cached
        oauth.rotate(retire=True)
        settings = MeshSettings.model_validate(
            {"auth": {"jwks_url": oauth.jwks_url, "issuer": oauth.issuer, "audience": RESOURCE}}
        )
        verifier = verifier_from_settings(settings)  # knows only the new key
        assert verifier is not None
        app = McpAuthorization(Endpoint(), verifier, path="/mcp")
        async with httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app)) as http:
            transport = AuthenticatedTransport(
                McpTransport(http, client_name="t", client_version="1"), credential
            )
            before = oauth.token_requests()
            result = await transport.request(url, "tools/call", {"name": "whoami", "arguments": {}})
    assert result["structuredContent"] == {"client_id": CLIENT_ID}
    assert oauth.token_requests() == before + 1  # the refused token dropped, one fresh one fetched
