"""A remote MCP server behind OAuth reached with the agent's client credentials for that server: an OAuth
client under `auth.dependency_clients.<server>` with neither token_url nor issuer finds the authorization
server as an MCP client does (the server's protected-resource metadata, RFC 9728, then the authorization
server's metadata) and asks for the resource the metadata names. The server is a real agent behind JWT
authorization, the authorization server node-oidc-provider (tests/servers/oidc)."""

from __future__ import annotations

import json
import threading
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import httpx2
import pytest

from mesh_framework.config.settings import AuthSettings
from mesh_framework.security.client_credentials import TokenEndpointError
from mesh_framework.security.outbound import OutboundCredentials
from tests.agents import AgentProcess, run_agent
from tests.servers.oidc_server import CLIENT_ID, CLIENT_SECRET, NODE, OidcServer, oidc_server

pytestmark = pytest.mark.timeout(90)
assert NODE  # the server runs under Node (tests/conftest.py classifies the module by this name)

ACCEPT = {"Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def oauth() -> Iterator[OidcServer]:
    with oidc_server(ttl=30) as server:
        yield server


@pytest.fixture(scope="module")
def remote(oauth: OidcServer) -> Iterator[AgentProcess]:
    """An MCP server behind OAuth: 401 with `resource_metadata`, its metadata naming the server."""
    env = {
        "MESH_AUTH__JWKS_URL": oauth.jwks_url,
        "MESH_AUTH__ISSUER": oauth.issuer,
        "MESH_AUTH__AUTHORIZATION_SERVERS": json.dumps([oauth.issuer]),
        "MESH_REGISTRY__ENABLED": "false",
    }
    with run_agent("tests.apps.identity_provider_app", env=env) as running:
        yield running


@pytest.fixture
async def http() -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient() as client:
        yield client


def books_client(**extra: Any) -> AuthSettings:
    client = {"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, **extra}
    return AuthSettings.model_validate({"dependency_clients": {"books": client}})


async def test_the_server_s_metadata_names_the_authorization_server_and_the_resource(
    remote: AgentProcess, http: httpx2.AsyncClient
) -> None:
    anonymous = await http.post(remote.mcp_url, json={}, headers=ACCEPT)
    assert anonymous.status_code == 401 and "resource_metadata=" in anonymous.headers["www-authenticate"]
    credential = OutboundCredentials(books_client(), lambda: http).for_named("books")
    assert credential is not None
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}}
    async with httpx2.AsyncClient(auth=credential.auth()) as caller:
        answer = await caller.post(remote.mcp_url, json=body, headers=ACCEPT)
    assert answer.status_code == 200
    message = json.loads(answer.text.split("data: ", 1)[1]) if "data: " in answer.text else answer.json()
    seen = message["result"]["structuredContent"]
    # the token was issued for the resource the metadata names: the server's own URL
    assert seen == {"client_id": CLIENT_ID, "subject": CLIENT_ID, "audience": [remote.mcp_url]}


class _Metadata(BaseHTTPRequestHandler):
    document: ClassVar[dict[str, Any]] = {}

    def do_GET(self) -> None:
        body = json.dumps(self.document).encode()
        self.send_response(200 if self.document else 404)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        ({"resource": "https://bank.example/mcp", "authorization_servers": ["x"]}, "names resource"),
        ({"resource": "SELF", "authorization_servers": []}, "names no authorization_servers"),
        ({}, "HTTP 404"),
    ],
)
async def test_metadata_that_cannot_be_trusted_fails_the_call_naming_why(
    document: dict[str, Any], reason: str, http: httpx2.AsyncClient, oauth: OidcServer
) -> None:
    handler = type("Handler", (_Metadata,), {})
    listener = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    url = f"http://127.0.0.1:{listener.server_address[1]}/mcp"
    handler.document = {**document, "resource": url} if document.get("resource") == "SELF" else document
    thread = threading.Thread(target=listener.serve_forever, daemon=True)
    thread.start()
    try:
        credential = OutboundCredentials(books_client(), lambda: http).for_named("books")
        assert credential is not None
        before = oauth.token_requests()
        with pytest.raises(TokenEndpointError) as failed:
            await credential.authorization(url)
    finally:
        listener.shutdown()
        listener.server_close()
    message = str(failed.value)
    assert message.startswith(
        f"auth.dependency_clients.books: the authorization server of {url} cannot be found"
    )
    assert reason in message
    assert oauth.token_requests() == before  # no token asked for a server that is not trusted


def test_the_agent_wide_client_still_names_its_authorization_server() -> None:
    with pytest.raises(ValueError, match="set token_url, or issuer"):
        AuthSettings.model_validate({"client_credentials": {"client_id": "a", "client_secret": "s"}})
