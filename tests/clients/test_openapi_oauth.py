"""An OpenAPI service called with the agent's OAuth client (client credentials): a real authorization server
(node-oidc-provider, tests/servers/oidc) issues the tokens the FastAPI service receives; a token endpoint
that fails is a tool error naming it."""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mesh_framework import MeshApplication
from mesh_framework.testing import mesh_client
from tests.servers.oidc_server import CLIENT_ID, CLIENT_SECRET, OidcServer, oidc_server

from ..mcp_servers import free_port, serve

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(scope="module")
def oauth() -> Iterator[OidcServer]:
    with oidc_server(ttl=30) as server:
        yield server


@pytest.fixture(scope="module")
def service() -> Iterator[str]:
    port = free_port()
    with serve([sys.executable, "-m", "tests.servers.openapi_service", str(port)], port):
        yield f"http://127.0.0.1:{port}"


def claims(authorization: str) -> dict[str, Any]:
    scheme, _, token = authorization.partition(" ")
    assert scheme == "Bearer"
    payload = token.split(".")[1]
    return dict(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))))


def app(tmp_path: Path, oauth: OidcServer, service: str) -> MeshApplication:
    (tmp_path / "application.yaml").write_text(
        f"""server:
  port: 0
mcp:
  openapi:
    - name: pets
      spec: {service}/openapi.json
      include_tags: [misc]
      auth:
        client: pets-client
    - name: billing
      spec: {service}/openapi.json
      include_tags: [misc]
      prefix: billing_
auth:
  dependency_clients:
    pets-client:
      issuer: {oauth.issuer}
      client_id: {CLIENT_ID}
      client_secret: {CLIENT_SECRET}
      scopes: read
      resource: urn:pets
    billing:
      token_url: {oauth.token_url}
      client_id: {CLIENT_ID}
      client_secret: {CLIENT_SECRET}
      resource: urn:billing
"""
    )
    return MeshApplication.load("tests.apps.openapi_app", config=tmp_path)


async def test_calls_carry_the_agents_oauth_client_tokens(
    tmp_path: Path, oauth: OidcServer, service: str
) -> None:
    async with mesh_client(app(tmp_path, oauth, service)) as client:
        seen = (await client.call_tool("whoami", {}))["structuredContent"]
        token = claims(seen["authorization"])
        assert token["client_id"] == CLIENT_ID and token["aud"] == "urn:pets" and token["iss"] == oauth.issuer
        # The service named like an auth.dependency_clients entry uses that client.
        billed = (await client.call_tool("billing_whoami", {}))["structuredContent"]
        assert claims(billed["authorization"])["aud"] == "urn:billing"
        # A token is fetched once and reused.
        before = oauth.token_requests()
        await client.call_tool("whoami", {})
        assert oauth.token_requests() == before


async def test_a_failing_token_endpoint_is_a_tool_error_naming_it(
    tmp_path: Path, oauth: OidcServer, service: str
) -> None:
    async with mesh_client(app(tmp_path, oauth, service)) as client:
        oauth.token_mode("error")
        try:
            result = await client.call_tool("billing_whoami", {})
        finally:
            oauth.token_mode("normal")
        assert result["isError"] is True
        message = result["content"][0]["text"]
        assert message.startswith(f"billing: GET {service}/whoami failed:")
        assert oauth.token_url in message and "503" in message
