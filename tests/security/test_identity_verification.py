"""Bearer tokens refused and accepted at an agent's MCP endpoint, against a real authorization server's JWKS
(node-oidc-provider, tests/servers/oidc): expired, wrong audience, wrong issuer, unsigned and wrongly
signed tokens get RFC 6750's `invalid_token`; a rotated key is picked up without a restart; clock skew
within `auth.leeway` is accepted, beyond it refused; the verified caller is what the endpoint serves."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from mesh_framework.config.settings import MeshSettings
from mesh_framework.security.authorization import McpAuthorization, verifier_from_settings
from mesh_framework.security.caller import current_access_token
from mesh_framework.security.verifiers import AccessToken
from tests.servers.oidc_server import CLIENT_ID, NODE, OidcServer, oidc_server

pytestmark = pytest.mark.timeout(60)

RESOURCE = "http://127.0.0.1/mcp"
assert NODE  # the server runs under Node (tests/conftest.py classifies the module by this name)


@pytest.fixture(scope="module")
def oauth() -> Iterator[OidcServer]:
    with oidc_server(ttl=30) as server:
        yield server


class Seen:
    """An ASGI app standing for the MCP endpoint: records the caller it was served with."""

    def __init__(self) -> None:
        self.callers: list[AccessToken | None] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.callers.append(current_access_token())
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})


@pytest.fixture
def seen() -> Seen:
    return Seen()


def protected(oauth: OidcServer, seen: Seen, leeway: float = 30.0, cooldown: float = 5.0) -> McpAuthorization:
    settings = MeshSettings.model_validate(
        {
            "auth": {
                "jwks_url": oauth.jwks_url,
                "issuer": oauth.issuer,
                "audience": RESOURCE,
                "leeway": leeway,
                "jwks_refresh_cooldown": cooldown,
            }
        }
    )
    verifier = verifier_from_settings(settings)
    assert verifier is not None
    return McpAuthorization(seen, verifier, path="/mcp")


@pytest.fixture
async def client(oauth: OidcServer, seen: Seen) -> AsyncIterator[httpx2.AsyncClient]:
    transport = httpx2.ASGITransport(app=protected(oauth, seen, leeway=30))
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        yield http


async def post(client: httpx2.AsyncClient, token: str) -> httpx2.Response:
    return await client.post("/mcp", json={}, headers={"authorization": f"Bearer {token}"})


def challenge(response: httpx2.Response) -> dict[str, str]:
    scheme, _, rest = response.headers["www-authenticate"].partition(" ")
    assert scheme == "Bearer"
    return {k: v.strip('"') for k, _, v in (p.partition("=") for p in rest.split(", "))}


def assert_invalid(response: httpx2.Response) -> None:
    assert response.status_code == 401, response.text
    found = challenge(response)
    assert found["error"] == "invalid_token"
    assert found["error_description"]
    assert response.json()["error"] == "invalid_token"


async def test_a_token_from_the_token_endpoint_is_the_caller(
    oauth: OidcServer, seen: Seen, client: httpx2.AsyncClient
) -> None:
    response = await post(client, oauth.fetch_token(RESOURCE))
    assert response.status_code == 200
    caller = seen.callers[-1]
    assert caller is not None
    assert caller.client_id == CLIENT_ID and caller.subject == CLIENT_ID
    assert caller.audience == (RESOURCE,) and caller.scopes == {"read"} and caller.issuer == oauth.issuer
    assert caller.expires_at is not None and caller.expires_at == caller.claims["exp"]  # the token's own
    with pytest.raises(TypeError):
        caller.claims["sub"] = "someone else"  # type: ignore[index]
    assert current_access_token() is None  # the caller does not outlive its request


async def test_bad_tokens_get_invalid_token(
    oauth: OidcServer, seen: Seen, client: httpx2.AsyncClient
) -> None:
    now = int(time.time())
    unsigned_header = base64.urlsafe_b64encode(json.dumps({"alg": "none", "typ": "JWT"}).encode()).rstrip(
        b"="
    )
    unsigned_body = base64.urlsafe_b64encode(json.dumps(oauth.claims(RESOURCE)).encode()).rstrip(b"=")
    kid = jwt.get_unverified_header(oauth.sign(oauth.claims(RESOURCE)))["kid"]
    other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    bad = {
        "expired": oauth.sign(oauth.claims(RESOURCE, exp=now - 120, iat=now - 180)),
        "wrong audience": oauth.fetch_token("http://127.0.0.1:9/someone-else"),
        "wrong issuer": oauth.sign(oauth.claims(RESOURCE, iss="http://127.0.0.1:1")),
        "unsigned": (unsigned_header + b"." + unsigned_body + b".").decode(),
        "wrong key": jwt.encode(oauth.claims(RESOURCE), other_key, algorithm="RS256", headers={"kid": kid}),
        "no exp": oauth.sign({k: v for k, v in oauth.claims(RESOURCE).items() if k != "exp"}),
        "not a JWT": "not-a-jwt",
    }
    for what, token in bad.items():
        response = await post(client, token)
        assert response.status_code == 401, what
        assert_invalid(response)
    assert seen.callers == []  # nothing reached the endpoint


async def test_a_rotated_key_is_picked_up_without_a_restart(oauth: OidcServer, seen: Seen) -> None:
    transport = httpx2.ASGITransport(app=protected(oauth, seen, cooldown=0))
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        assert (await post(client, oauth.fetch_token(RESOURCE))).status_code == 200  # the JWKS is cached
        new_kid = oauth.rotate()
        token = oauth.fetch_token(RESOURCE)
        assert jwt.get_unverified_header(token)["kid"] == new_kid
        assert (await post(client, token)).status_code == 200
    assert len(seen.callers) == 2


async def test_unknown_key_ids_fetch_the_jwks_at_most_once_per_cooldown(
    oauth: OidcServer, seen: Seen
) -> None:
    transport = httpx2.ASGITransport(app=protected(oauth, seen, cooldown=600))
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        assert (await post(client, oauth.fetch_token(RESOURCE))).status_code == 200
        oauth.rotate()  # within the cooldown of the fetch above: the new key is not fetched yet
        assert_invalid(await post(client, oauth.fetch_token(RESOURCE)))


async def test_clock_skew_within_the_leeway_is_accepted_beyond_it_refused(
    oauth: OidcServer, seen: Seen
) -> None:
    now = int(time.time())
    transport = httpx2.ASGITransport(app=protected(oauth, seen, leeway=10))
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        # the server's clock 5 s behind ours: just expired by our clock; issued "in the future" by 5 s
        assert (await post(client, oauth.sign(oauth.claims(RESOURCE, exp=now - 5)))).status_code == 200
        assert (await post(client, oauth.sign(oauth.claims(RESOURCE, nbf=now + 5)))).status_code == 200
        assert_invalid(await post(client, oauth.sign(oauth.claims(RESOURCE, exp=now - 60))))
        assert_invalid(await post(client, oauth.sign(oauth.claims(RESOURCE, nbf=now + 60))))
