"""The agent as an OAuth client (client credentials) against a real authorization server (node-oidc-provider,
tests/servers/oidc): tokens fetched with a resource indicator, cached, shared by concurrent callers,
renewed before expiry and after a refusal; a token endpoint that is down, slow or answers garbage fails
with one clear line; secrets masked in `mesh config`."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx2
import jwt
import pytest

from mesh_framework.config.loader import load_settings
from mesh_framework.config.settings import AuthSettings, ClientCredentialsSettings
from mesh_framework.errors import ConfigError
from mesh_framework.security.client_credentials import ClientCredentialsTokens, TokenEndpointError
from mesh_framework.security.outbound import OutboundCredentials
from tests.servers.oidc_server import CLIENT_ID, CLIENT_SECRET, NODE, OidcServer, oidc_server

pytestmark = pytest.mark.timeout(60)

RESOURCE = "http://127.0.0.1:9/mcp"
assert NODE  # the server runs under Node (tests/conftest.py classifies the module by this name)


@pytest.fixture(scope="module")
def oauth() -> Iterator[OidcServer]:
    with oidc_server(ttl=5) as server:
        yield server


@pytest.fixture
async def http() -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient() as client:
        yield client


def settings(oauth: OidcServer, **overrides: Any) -> ClientCredentialsSettings:
    values: dict[str, Any] = {
        "token_url": oauth.token_url,
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "scopes": "read",
        **overrides,
    }
    return ClientCredentialsSettings.model_validate(values)


class Clock:
    """The token source's monotonic clock, moved by the test (no waiting for a token to age)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_a_token_is_fetched_for_the_resource_called_and_cached(
    oauth: OidcServer, http: httpx2.AsyncClient
) -> None:
    tokens = ClientCredentialsTokens(settings(oauth), lambda: http)
    before = oauth.token_requests()
    first = await tokens.token(RESOURCE)
    claims = jwt.decode(first, options={"verify_signature": False})
    assert claims["aud"] == RESOURCE and claims["client_id"] == CLIENT_ID and claims["scope"] == "read"
    assert await tokens.token(RESOURCE) == first
    assert oauth.token_requests() == before + 1
    other = await tokens.token("http://127.0.0.1:10/mcp")  # another resource, another token
    assert jwt.decode(other, options={"verify_signature": False})["aud"] == "http://127.0.0.1:10/mcp"


async def test_concurrent_callers_share_one_request(oauth: OidcServer, http: httpx2.AsyncClient) -> None:
    tokens = ClientCredentialsTokens(settings(oauth), lambda: http)
    before = oauth.token_requests()
    got = await asyncio.gather(*(tokens.token(RESOURCE) for _ in range(20)))
    assert len(set(got)) == 1
    assert oauth.token_requests() == before + 1


async def test_a_token_is_renewed_shortly_before_it_expires(
    oauth: OidcServer, http: httpx2.AsyncClient
) -> None:
    clock = Clock()
    tokens = ClientCredentialsTokens(settings(oauth), lambda: http, clock=clock)
    first = await tokens.token(RESOURCE)
    clock.now += 3.9  # a 5 s token, still good for more than a fifth of its life: kept
    assert await tokens.token(RESOURCE) == first
    clock.now += 0.2  # within the last fifth: renewed
    second = await tokens.token(RESOURCE)
    assert second != first


async def test_a_refused_token_is_dropped_and_another_fetched(
    oauth: OidcServer, http: httpx2.AsyncClient
) -> None:
    tokens = ClientCredentialsTokens(settings(oauth), lambda: http)
    first = await tokens.token(RESOURCE)
    assert tokens.invalidate(RESOURCE, first)
    second = await tokens.token(RESOURCE)
    assert second != first
    assert not tokens.invalidate(RESOURCE, first)  # a stale refusal leaves the newer token alone


async def test_the_token_endpoint_is_found_from_the_issuer(
    oauth: OidcServer, http: httpx2.AsyncClient
) -> None:
    tokens = ClientCredentialsTokens(settings(oauth, token_url=None, issuer=oauth.issuer), lambda: http)
    claims = jwt.decode(await tokens.token(RESOURCE), options={"verify_signature": False})
    assert claims["iss"] == oauth.issuer


async def test_client_secret_post_authenticates_too(oauth: OidcServer, http: httpx2.AsyncClient) -> None:
    tokens = ClientCredentialsTokens(settings(oauth, auth_method="client_secret_post"), lambda: http)
    assert await tokens.token(RESOURCE)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def failure(
    tokens: ClientCredentialsTokens, caplog: pytest.LogCaptureFixture
) -> tuple[str, list[logging.LogRecord]]:
    caplog.clear()
    with (
        caplog.at_level(logging.DEBUG, logger="mesh_framework.security"),
        pytest.raises(TokenEndpointError) as raised,
    ):
        await tokens.token(RESOURCE)
    return str(raised.value), [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_a_token_endpoint_that_is_down_slow_or_garbled_fails_with_one_clear_line(
    oauth: OidcServer, http: httpx2.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    down = f"http://127.0.0.1:{closed_port()}/token"
    tokens = ClientCredentialsTokens(settings(oauth, token_url=down), lambda: http)
    message, lines = await failure(tokens, caplog)
    assert message.startswith(f"auth.client_credentials: no access token from {down} for client 'agent-a': ")
    assert "ConnectError" in message and len(lines) == 1
    try:
        oauth.token_mode("slow")
        tokens = ClientCredentialsTokens(settings(oauth, timeout=0.5), lambda: http)
        message, lines = await failure(tokens, caplog)
        assert message.endswith(f"{oauth.token_url} for client 'agent-a': no answer within 0.5s")
        assert len(lines) == 1
        oauth.token_mode("garbage")
        message, lines = await failure(ClientCredentialsTokens(settings(oauth), lambda: http), caplog)
        assert message.endswith("answered text/html, not a JSON token response") and len(lines) == 1
        oauth.token_mode("error")
        message, lines = await failure(ClientCredentialsTokens(settings(oauth), lambda: http), caplog)
        assert message.endswith("refused: HTTP 503 temporarily_unavailable (maintenance)")
    finally:
        oauth.token_mode("normal")
    wrong = ClientCredentialsTokens(settings(oauth, client_secret="not-it"), lambda: http)
    message, lines = await failure(wrong, caplog)
    assert "refused: HTTP 401 invalid_client" in message
    assert "not-it" not in message and all("not-it" not in r.getMessage() for r in caplog.records)


async def test_an_issuer_without_metadata_names_each_place_looked(
    http: httpx2.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    issuer = f"http://127.0.0.1:{closed_port()}"
    tokens = ClientCredentialsTokens(
        ClientCredentialsSettings(issuer=issuer, client_id="a", client_secret="b"),  # type: ignore[arg-type]
        lambda: http,
    )
    message, lines = await failure(tokens, caplog)
    assert f"the token endpoint of issuer {issuer} cannot be found" in message
    assert "/.well-known/oauth-authorization-server" in message
    assert "/.well-known/openid-configuration" in message
    assert len(lines) == 1


async def test_tokens_and_secrets_are_never_logged(
    oauth: OidcServer, http: httpx2.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    tokens = ClientCredentialsTokens(settings(oauth), lambda: http)
    with caplog.at_level(logging.DEBUG):
        value = await tokens.token(RESOURCE)
    logged = caplog.text
    assert value not in logged and CLIENT_SECRET not in logged
    assert value not in repr(tokens) and value not in repr(tokens._tokens)


def test_a_capability_s_own_client_wins_over_the_agent_s() -> None:
    own = {"token_url": "http://127.0.0.1:1/token", "client_id": "own", "client_secret": "s"}
    auth = AuthSettings.model_validate(
        {
            "client_credentials": {**own, "client_id": "agent"},
            "dependency_clients": {"weather": own},
            "dependency_tokens": {"static": "t0ken"},
        }
    )
    credentials = OutboundCredentials(auth, httpx2.AsyncClient)
    weather, other, static = (credentials.for_dependency(c) for c in ("weather", "other", "static"))
    assert weather is not None and weather.tokens is not None and weather.tokens.config.client_id == "own"
    assert other is not None and other.tokens is not None and other.tokens.config.client_id == "agent"
    assert static is not None and static.static == "t0ken" and not static.renewable
    # a catalog server or A2A peer gets only what is named for it
    assert credentials.for_named("other") is None
    again = credentials.for_dependency("another")  # one token cache per client, shared by its targets
    assert again is not None and again.tokens is other.tokens


def write(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "config"
    folder.mkdir(exist_ok=True)
    (folder / "application.yaml").write_text(text)
    return folder


def test_client_settings_problems_name_the_setting_and_its_file_line(tmp_path: Path) -> None:
    folder = write(
        tmp_path,
        "agents:\n"
        "  alpha:\n"
        "    auth:\n"
        "      client_credentials:\n"
        "        client_id: a\n"
        "        client_secret: s3cr3t-value\n"
        "      tokens:\n"
        "        - token: ''\n",
    )
    with pytest.raises(ConfigError) as raised:
        load_settings(config_dir=folder, environ={"MESH_AGENT__NAME": "alpha"})
    problems = "\n".join(raised.value.problems)
    assert "auth.client_credentials" in problems and "set token_url, or issuer" in problems
    assert "auth.tokens.0.token" in problems and "a token must not be empty" in problems
    assert "config/application.yaml:" in problems and "from default" not in problems
    assert "s3cr3t-value" not in problems


def test_a_client_secret_is_masked_in_mesh_config(tmp_path: Path) -> None:
    folder = write(
        tmp_path,
        "auth:\n"
        "  client_credentials:\n"
        "    token_url: http://127.0.0.1:1/token\n"
        "    client_id: a\n"
        "    client_secret: s3cr3t-value\n"
        "  dependency_clients:\n"
        "    weather:\n"
        "      issuer: http://127.0.0.1:1\n"
        "      client_id: w\n"
        "      client_secret: other-s3cr3t\n",
    )
    table = load_settings(config_dir=folder, environ={}).table()
    rows = {key: (value, origin) for key, value, origin in table}
    assert rows["auth.client_credentials.client_secret"][0] == "******"
    assert rows["auth.client_credentials.client_secret"][1].endswith("application.yaml:5")
    assert "other-s3cr3t" not in str(rows) and "s3cr3t-value" not in str(rows)


def test_one_agent_wide_credential_at_a_time(tmp_path: Path) -> None:
    folder = write(
        tmp_path,
        "auth:\n"
        "  client_token: abc\n"
        "  client_credentials: {token_url: 'http://127.0.0.1:1/t', client_id: a, client_secret: b}\n",
    )
    with pytest.raises(ConfigError, match="set client_token or client_credentials, not both"):
        load_settings(config_dir=folder, environ={})
