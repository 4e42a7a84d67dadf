"""What this agent sends as its identity on the calls it makes: a static bearer token, or access tokens of
an OAuth client (client credentials), chosen per target.

For a mesh dependency (by capability): `auth.dependency_tokens[cap]`, else `auth.dependency_clients[cap]`,
else the agent-wide `auth.client_token` or `auth.client_credentials`. For a catalog MCP server or an A2A
peer (by its name): only what is named for it in `auth.dependency_tokens` / `auth.dependency_clients` (a
server outside the mesh is not sent the agent's own identity unless asked).

With `token_exchange` set on the OAuth client, a call made while serving a request whose caller presented
a verified JWT carries a token exchanged for the caller's (RFC 8693: its subject is the caller, its actor
this agent); a call with no such caller (a static token, no token, a call not made for a request) carries
the client's own token, as without exchange.

The token source lives here, in the core; a feature that calls out (A2A client, catalog connections) asks
`OutboundCredentials` for a target's `Credential` and sends what it answers (`authorization`, or `auth` as an
httpx2 auth flow that renews a refused token once).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Generator

import httpx2

from .._frozen import frozen
from ..config.settings import AuthSettings, ClientCredentialsSettings
from .caller import presented_token
from .client_credentials import ClientCredentialsTokens

__all__ = ["BearerAuth", "Credential", "OutboundCredentials", "invalid_token_challenge"]


def invalid_token_challenge(status: int, www_authenticate: str | None, error: object = None) -> bool:
    """Whether an answer refuses the token sent as invalid (RFC 6750 §3.1): a 401 whose challenge says
    `error="invalid_token"` (or, where headers are not at hand, whose JSON body's `error` says so)."""
    if status != 401:
        return False
    if www_authenticate is not None and "invalid_token" in www_authenticate:
        return True
    return error == "invalid_token"


@frozen
class Credential:
    """The identity sent to one target: a static token, or an OAuth client's tokens."""

    setting: str
    static: str | None = None
    tokens: ClientCredentialsTokens | None = None

    @property
    def renewable(self) -> bool:
        """Whether a refused token may be replaced by another (an OAuth client's)."""
        return self.tokens is not None

    async def authorization(self, url: str | None) -> str:
        """The `Authorization` header value for a call to `url` (TokenEndpointError: no token to be had)."""
        if self.tokens is None:
            return f"Bearer {self.static}"
        return "Bearer " + await self.tokens.token(await self.tokens.resource_at(url), self._subject())

    def refused(self, url: str | None, authorization: str) -> bool:
        """The target refused `authorization` as an invalid token: drop it. True when a retry with a fresh
        token may pass (an OAuth client's token; a static one stays what it is)."""
        if self.tokens is None:
            return False
        value = authorization.removeprefix("Bearer ")
        self.tokens.invalidate(self.tokens.resource_for(url), value, self._subject())
        return True

    def _subject(self) -> str | None:
        """The caller's token to exchange: with `token_exchange` on, while serving a caller verified from
        a JWT (one with an issuer; a static token means nothing to the authorization server)."""
        if self.tokens is None or not self.tokens.config.token_exchange:
            return None
        presented = presented_token()
        if presented is None or presented.access.issuer is None:
            return None
        return presented.value

    def auth(self) -> BearerAuth:
        """This credential as an httpx2 auth flow (the MCP SDK's client, the A2A client)."""
        return BearerAuth(self)


class BearerAuth(httpx2.Auth):
    """Adds the credential's `Authorization` to each request; on a 401 `invalid_token`, drops the token
    and sends the request once more with a fresh one (an OAuth client's tokens only)."""

    requires_request_body = True  # a retried request is sent again whole

    def __init__(self, credential: Credential) -> None:
        self.credential = credential

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        url = str(request.url)
        sent = await self.credential.authorization(url)
        request.headers["authorization"] = sent
        response = yield request
        challenge = response.headers.get("www-authenticate")
        if invalid_token_challenge(response.status_code, challenge) and self.credential.refused(url, sent):
            await response.aread()
            request.headers["authorization"] = await self.credential.authorization(url)
            yield request

    def sync_auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
        if self.credential.tokens is not None:
            raise RuntimeError("an OAuth client's tokens are fetched asynchronously: use an async client")
        request.headers["authorization"] = f"Bearer {self.credential.static}"
        yield request


class OutboundCredentials:
    """The agent's outbound identities, one token cache per OAuth client (shared by every target that
    uses it). `http` is the HTTP client for the token endpoint (the agent's pooled one: its TLS)."""

    def __init__(self, auth: AuthSettings, http: Callable[[], httpx2.AsyncClient]) -> None:
        self.auth = auth
        self._http = http
        self._clients: dict[str, ClientCredentialsTokens] = {}

    def for_dependency(self, capability: str) -> Credential | None:
        """What a call to mesh `capability` carries (None: nothing)."""
        return self._named(capability) or self._agent_wide()

    def for_named(self, name: str) -> Credential | None:
        """What a call to catalog server or A2A peer `name` carries: only what is set for that name."""
        return self._named(name)

    def _named(self, name: str) -> Credential | None:
        auth = self.auth
        setting = f"auth.dependency_tokens.{name}"
        if name in auth.dependency_tokens:
            return Credential(setting, static=auth.dependency_tokens[name].get_secret_value())
        config = auth.dependency_clients.get(name)
        if config is not None:
            return self._client(f"auth.dependency_clients.{name}", config)
        return None

    def _agent_wide(self) -> Credential | None:
        auth = self.auth
        if auth.client_credentials is not None:
            return self._client("auth.client_credentials", auth.client_credentials)
        if auth.client_token is not None:
            return Credential("auth.client_token", static=auth.client_token.get_secret_value())
        return None

    def _client(self, setting: str, config: ClientCredentialsSettings) -> Credential:
        tokens = self._clients.get(setting)
        if tokens is None:
            tokens = self._clients[setting] = ClientCredentialsTokens(config, self._http, setting=setting)
        return Credential(setting, tokens=tokens)
