"""On behalf of the user: an agent serving a request whose caller presented a verified JWT exchanges it
(RFC 8693) at a real authorization server (node-oidc-provider with a token exchange grant,
tests/servers/oidc) for a token of the resource it calls, whose subject is the user and whose actor is the
agent; without a caller, with a static-token caller or with exchange off it sends its own token."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import pytest

from mesh_framework.config.settings import AuthSettings, MeshSettings
from mesh_framework.security.access_token import AccessToken
from mesh_framework.security.authorization import verifier_from_settings
from mesh_framework.security.caller import presented_token, serving_caller
from mesh_framework.security.client_credentials import TokenEndpointError
from mesh_framework.security.outbound import Credential, OutboundCredentials
from mesh_framework.security.verifiers import TokenVerifier
from tests.servers.oidc_server import (
    CLIENT_ID,
    CLIENT_SECRET,
    NODE,
    OTHER_ID,
    OTHER_SECRET,
    OidcServer,
    oidc_server,
)

pytestmark = pytest.mark.timeout(60)
assert NODE  # the server runs under Node (tests/conftest.py classifies the module by this name)

FRONT = "urn:example:front"  # the agent the user calls
BACK = "urn:example:back"  # the agent it calls for the user
FURTHER = "urn:example:further"  # the one that one calls


@pytest.fixture(scope="module")
def oauth() -> Iterator[OidcServer]:
    with oidc_server(ttl=30) as server:
        yield server


@pytest.fixture
async def http() -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient() as client:
        yield client


def credential(
    oauth: OidcServer,
    http: httpx2.AsyncClient,
    *,
    exchange: bool = True,
    resource: str = BACK,
    client: tuple[str, str] = (CLIENT_ID, CLIENT_SECRET),
) -> Credential:
    auth = AuthSettings.model_validate(
        {
            "client_credentials": {
                "issuer": oauth.issuer,
                "client_id": client[0],
                "client_secret": client[1],
                "resource": resource,
                "token_exchange": exchange,
            }
        }
    )
    found = OutboundCredentials(auth, lambda: http).for_dependency("anything")
    assert found is not None
    return found


def verifier(oauth: OidcServer, audience: str) -> TokenVerifier:
    settings = MeshSettings.model_validate(
        {"auth": {"jwks_url": oauth.jwks_url, "issuer": oauth.issuer, "audience": audience}}
    )
    found = verifier_from_settings(settings)
    assert found is not None
    return found


async def sent(credential: Credential, audience_verifier: TokenVerifier) -> tuple[str, AccessToken]:
    """The token a call carries, as the called agent verifies it."""
    value = (await credential.authorization("http://127.0.0.1:9/mcp")).removeprefix("Bearer ")
    access = await audience_verifier.verify(value)
    assert access is not None, "the called agent refuses the token it was sent"
    return value, access


async def as_caller(oauth: OidcServer, token: str, audience: str = FRONT) -> AccessToken:
    access = await verifier(oauth, audience).verify(token)
    assert access is not None
    return access


async def test_a_call_made_for_a_user_carries_a_token_whose_subject_is_the_user(
    oauth: OidcServer, http: httpx2.AsyncClient
) -> None:
    user = oauth.user_token("alice", FRONT)
    before = oauth.exchanges()
    with serving_caller(await as_caller(oauth, user), user):
        _, access = await sent(credential(oauth, http), verifier(oauth, BACK))
    assert (access.subject, access.actor, access.client_id) == ("alice", CLIENT_ID, CLIENT_ID)
    assert access.audience == (BACK,) and access.scopes == {"read"}  # never more than the user's token
    assert oauth.exchanges() == before + 1


async def test_an_agent_called_for_the_user_passes_the_user_on_with_both_actors(
    oauth: OidcServer, http: httpx2.AsyncClient
) -> None:
    user = oauth.user_token("alice", FRONT)
    with serving_caller(await as_caller(oauth, user), user):
        exchanged, _ = await sent(credential(oauth, http), verifier(oauth, BACK))
    # the back agent, serving that call, calls a third one as its own client
    back = credential(oauth, http, resource=FURTHER, client=(OTHER_ID, OTHER_SECRET))
    with serving_caller(await as_caller(oauth, exchanged, BACK), exchanged):
        _, access = await sent(back, verifier(oauth, FURTHER))
    assert (access.subject, access.actor) == ("alice", OTHER_ID)
    assert access.claims["act"] == {"sub": OTHER_ID, "act": {"sub": CLIENT_ID}}


async def test_without_a_user_or_with_exchange_off_the_agent_sends_its_own_token(
    oauth: OidcServer, http: httpx2.AsyncClient
) -> None:
    back = verifier(oauth, BACK)
    before = oauth.exchanges()
    _, access = await sent(credential(oauth, http), back)  # not serving anyone: a job, a timer
    assert (access.subject, access.actor) == (CLIENT_ID, None)
    user = oauth.user_token("alice", FRONT)
    with serving_caller(await as_caller(oauth, user), user):
        _, access = await sent(credential(oauth, http, exchange=False), back)
    assert (access.subject, access.actor) == (CLIENT_ID, None)
    # a caller known by a static token (auth.tokens) is nobody at the authorization server
    with serving_caller(AccessToken("ci", frozenset({"read"})), "a-static-token"):
        _, access = await sent(credential(oauth, http), back)
    assert (access.subject, access.actor) == (CLIENT_ID, None)
    assert oauth.exchanges() == before


async def test_one_exchange_per_user_and_resource_while_it_is_valid(
    oauth: OidcServer, http: httpx2.AsyncClient
) -> None:
    agent = credential(oauth, http)
    back = verifier(oauth, BACK)
    alice, bob = oauth.user_token("alice", FRONT), oauth.user_token("bob", FRONT)
    before = oauth.exchanges()
    seen = []
    for user in (alice, alice, bob, alice):
        with serving_caller(await as_caller(oauth, user), user):
            seen.append((await sent(agent, back))[1].subject)
    assert seen == ["alice", "alice", "bob", "alice"]
    assert oauth.exchanges() == before + 2
    with serving_caller(await as_caller(oauth, alice), alice):  # refused downstream: dropped, exchanged again
        value, _ = await sent(agent, back)
        assert agent.refused("http://127.0.0.1:9/mcp", f"Bearer {value}")
        again, access = await sent(agent, back)
    assert again != value and access.subject == "alice"
    assert oauth.exchanges() == before + 3


async def test_a_subject_token_the_server_refuses_fails_the_call_with_one_line(
    oauth: OidcServer, http: httpx2.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    # verified here (a JWT of this issuer, as far as the agent knows), unknown to the server
    caller = AccessToken("web-app", subject="mallory", claims={"iss": oauth.issuer, "sub": "mallory"})
    with (
        caplog.at_level(logging.WARNING),
        serving_caller(caller, "not.a.token-of-that-server"),
        pytest.raises(TokenEndpointError) as failed,
    ):
        await credential(oauth, http).authorization("http://127.0.0.1:9/mcp")
    message = str(failed.value)
    assert message.startswith(f"auth.client_credentials: no access token from {oauth.issuer}/token")
    assert "invalid_grant" in message and "not.a.token" not in message
    assert [r.getMessage() for r in caplog.records] == [message]


async def test_the_user_s_token_is_never_shown(
    oauth: OidcServer, http: httpx2.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    user = oauth.user_token("alice", FRONT)
    caller = await as_caller(oauth, user)
    with caplog.at_level(logging.DEBUG), serving_caller(caller, user):
        held = presented_token()
        value, _ = await sent(credential(oauth, http), verifier(oauth, BACK))
    assert held is not None and held.value == user
    shown: list[Any] = [repr(held), repr(caller), str(caller), caplog.text]
    assert not any(user in text or value in text for text in shown)
    assert presented_token() is None  # only while the request is served
