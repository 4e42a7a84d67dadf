"""Access tokens of this agent as an OAuth 2.0 client: the client credentials grant (RFC 6749 §4.4) with a
resource indicator (RFC 8707), the token endpoint found in the authorization server's metadata (RFC 8414,
or OpenID Connect discovery) when only the issuer is given; and, on behalf of a caller, token exchange
(RFC 8693): the caller's token as `subject_token`, answered with a token of the resource whose subject is
the caller and whose actor is this client (the server sets `act`; the client authenticates as always).

A client with neither `token_url` nor `issuer` finds its authorization server as an MCP client does: the
called server's protected-resource metadata (RFC 9728, at its well-known URIs) names the resource to ask
for and the authorization server, whose own metadata names the token endpoint. The resource must be on
the same origin as the URL called (a server cannot have tokens issued to it for another one).

A token is fetched on first need, per resource, and kept until shortly before it expires; callers that
need one at the same time share one request (single-flight). A token a server refused as invalid is
dropped (`invalidate`) so the next call fetches another. A token endpoint that is down, slow or answers
something that is not a token response raises `TokenEndpointError`, naming the endpoint and the reason.
Tokens and the client secret are never logged.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import field
from urllib.parse import quote, urlsplit

import httpx2

from .._frozen import frozen
from ..config.settings import ClientCredentialsSettings
from ..errors import MeshError
from .token_response import TokenResponseError, json_object, media_type, token_response

__all__ = [
    "ACCESS_TOKEN_TYPE",
    "TOKEN_EXCHANGE",
    "ClientCredentialsTokens",
    "IssuedToken",
    "TokenEndpointError",
]

logger = logging.getLogger("mesh_framework.security")

# Renewed this long before expiry: a fifth of its lifetime, at most 30 s (a 5 s token: 1 s before).
_MAX_EARLY = 30.0
_DEFAULT_LIFETIME = 300.0  # a response without expires_in (RFC 6749 only recommends it)
_MAX_EXCHANGED = 1024  # tokens held for callers (one per caller and resource); the oldest dropped first

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"

# Where a token is held: (a digest of the caller's token for an exchanged one, else None; the resource).
_Key = tuple[str | None, str | None]


class TokenEndpointError(MeshError):
    """No access token could be had: the endpoint (or its metadata) is down, slow, refused, or answered
    something that is not a token response."""


@frozen
class IssuedToken:
    """An access token this agent holds: its value (never shown), when to renew it (monotonic clock)."""

    value: str = field(repr=False)
    renew_at: float
    expires_in: float
    scope: str | None = None


class ClientCredentialsTokens:
    """One OAuth client's access tokens, by resource. `setting` names its settings in messages
    (`auth.client_credentials`, `auth.dependency_clients.weather`).

    Usage: `await tokens.token("http://weather:8080/mcp")` -> the bearer token to send."""

    def __init__(
        self,
        config: ClientCredentialsSettings,
        http: Callable[[], httpx2.AsyncClient],
        *,
        setting: str = "auth.client_credentials",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self.setting = setting
        self._http = http
        self._clock = clock
        self._tokens: dict[_Key, IssuedToken] = {}
        self._pending: dict[_Key, asyncio.Future[IssuedToken]] = {}
        self._token_url = config.token_url
        self._issuer = config.issuer
        self._resources: dict[str, str] = {}  # URL called -> the resource its metadata names

    def __repr__(self) -> str:
        return f"ClientCredentialsTokens({self.setting}, client_id={self.config.client_id!r})"

    def resource_for(self, url: str | None) -> str | None:
        """The resource asked for on a call to `url`: the configured one, else the one its metadata named
        (once `resource_at` found it), else the URL itself."""
        return self.config.resource or (self._resources.get(url) if url else None) or url

    async def resource_at(self, url: str | None) -> str | None:
        """`resource_for(url)`, the called server's metadata read first when this client finds its
        authorization server there (TokenEndpointError when it cannot be read)."""
        if self.config.resource or not self.config.discovered or url is None or url in self._resources:
            return self.resource_for(url)
        self._resources[url] = await self._protected_resource(url)
        return self._resources[url]

    async def token(self, resource: str | None, subject: str | None = None) -> str:
        """A valid access token for `resource` (TokenEndpointError when none can be had): this client's
        own, or with `subject` (the caller's token) one exchanged for it on the caller's behalf."""
        key = _key(resource, subject)
        held = self._tokens.get(key)
        if held is not None and self._clock() < held.renew_at:
            return held.value
        pending = self._pending.get(key)
        if pending is None:
            pending = asyncio.ensure_future(self._fetch(key, resource, subject))
            self._pending[key] = pending
            pending.add_done_callback(lambda _f: self._pending.pop(key, None))
        # shielded: a caller that leaves does not cancel the request the others wait on
        return (await asyncio.shield(pending)).value

    def invalidate(self, resource: str | None, value: str, subject: str | None = None) -> bool:
        """Drop the token `value` a server refused (a 401 `invalid_token`); True when it was the one held
        (a newer one may have replaced it already: then there is nothing to drop, but a retry may pass)."""
        key = _key(resource, subject)
        held = self._tokens.get(key)
        if held is not None and held.value == value:
            del self._tokens[key]
            return True
        return False

    async def _fetch(self, key: _Key, resource: str | None, subject: str | None) -> IssuedToken:
        endpoint = self._token_url or await self._discover()
        form = {"grant_type": "client_credentials"}
        if subject is not None:  # RFC 8693 §2.1: the client that authenticates is the actor
            form = {
                "grant_type": TOKEN_EXCHANGE,
                "subject_token": subject,
                "subject_token_type": ACCESS_TOKEN_TYPE,
                "requested_token_type": ACCESS_TOKEN_TYPE,
            }
        if self.config.scopes:
            form["scope"] = " ".join(self.config.scopes)
        if resource:
            form["resource"] = resource
        headers = {"accept": "application/json"}
        secret = self.config.client_secret.get_secret_value()
        if self.config.auth_method == "client_secret_post":
            form |= {"client_id": self.config.client_id, "client_secret": secret}
        else:  # RFC 6749 §2.3.1: each form-encoded before joining
            pair = f"{quote(self.config.client_id, safe='')}:{quote(secret, safe='')}"
            headers["authorization"] = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
        started = self._clock()
        response = await self._post(endpoint, form, headers)
        issued = self._issued(endpoint, response, started, exchanged=subject is not None)
        if subject is not None and len(self._tokens) >= _MAX_EXCHANGED:
            del self._tokens[next(k for k in self._tokens if k[0] is not None)]
        self._tokens[key] = issued
        logger.debug(
            "%s: access token for %s%s, valid %gs",
            self.setting,
            resource or "no resource",
            " on behalf of the caller" if subject is not None else "",
            issued.expires_in,
        )
        return issued

    async def _post(self, endpoint: str, form: dict[str, str], headers: dict[str, str]) -> httpx2.Response:
        try:
            return await self._http().post(endpoint, data=form, headers=headers, timeout=self.config.timeout)
        except httpx2.TimeoutException:
            raise self._failed(endpoint, f"no answer within {self.config.timeout:g}s") from None
        except httpx2.HTTPError as exc:
            raise self._failed(endpoint, f"{type(exc).__name__}: {exc or 'connection failed'}") from None

    def _issued(
        self, endpoint: str, response: httpx2.Response, started: float, *, exchanged: bool = False
    ) -> IssuedToken:
        try:
            body = token_response(response)
        except TokenResponseError as exc:
            raise self._failed(endpoint, str(exc)) from None
        value = body["access_token"]
        issued_type = body.get("issued_token_type", ACCESS_TOKEN_TYPE)
        if exchanged and issued_type != ACCESS_TOKEN_TYPE:
            raise self._failed(endpoint, f"issued_token_type {issued_type!r} is not an access token")
        lifetime = body.get("expires_in", _DEFAULT_LIFETIME)
        if isinstance(lifetime, str) and lifetime.isdigit():
            lifetime = int(lifetime)
        if not isinstance(lifetime, (int, float)) or isinstance(lifetime, bool) or lifetime <= 0:
            raise self._failed(endpoint, f"expires_in {lifetime!r} is not a positive number of seconds")
        early = min(_MAX_EARLY, lifetime / 5)
        scope = body.get("scope")
        return IssuedToken(
            value,
            renew_at=started + lifetime - early,
            expires_in=float(lifetime),
            scope=scope if isinstance(scope, str) else None,
        )

    async def _protected_resource(self, url: str) -> str:
        """The resource `url` belongs to and its authorization server, from its metadata (RFC 9728 §3:
        the path-suffixed well-known URI, then the root one)."""
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        path = parts.path.rstrip("/")
        candidates = [f"{origin}/.well-known/oauth-protected-resource{path}"] if path else []
        candidates.append(f"{origin}/.well-known/oauth-protected-resource")
        reasons = []
        for candidate in candidates:
            try:
                response = await self._http().get(candidate, timeout=self.config.timeout)
            except httpx2.HTTPError as exc:
                reasons.append(f"{candidate}: {type(exc).__name__}: {exc or 'connection failed'}")
                continue
            metadata = json_object(response) if response.status_code == 200 else None
            if metadata is None:
                reasons.append(f"{candidate}: HTTP {response.status_code} {media_type(response)}")
                continue
            resource, servers = metadata.get("resource"), metadata.get("authorization_servers")
            named = urlsplit(resource) if isinstance(resource, str) else None
            if named is None or f"{named.scheme}://{named.netloc}" != origin:
                reasons.append(f"{candidate}: names resource {resource!r}, not one of {origin}")
                continue
            if not isinstance(servers, list) or not servers or not isinstance(servers[0], str):
                reasons.append(f"{candidate}: names no authorization_servers")
                continue
            if self._issuer is None:
                self._issuer = servers[0]
            return str(resource)
        problem = TokenEndpointError(
            f"{self.setting}: the authorization server of {url} cannot be found: {'; '.join(reasons)}"
        )
        logger.warning("%s", problem)
        raise problem

    async def _discover(self) -> str:
        """The token endpoint from the issuer's metadata: RFC 8414, then OpenID Connect discovery."""
        issuer = self._issuer
        if issuer is None:
            raise self._failed("(unknown)", "no token_url or issuer, and no server's metadata read yet")
        parts = urlsplit(issuer)
        path = parts.path.rstrip("/")
        base = f"{parts.scheme}://{parts.netloc}"
        candidates = [
            f"{base}/.well-known/oauth-authorization-server{path}",
            f"{base}{path}/.well-known/openid-configuration",
        ]
        reasons = []
        for url in candidates:
            try:
                response = await self._http().get(url, timeout=self.config.timeout)
            except httpx2.TimeoutException:
                reasons.append(f"{url}: no answer within {self.config.timeout:g}s")
                continue
            except httpx2.HTTPError as exc:
                reasons.append(f"{url}: {type(exc).__name__}: {exc or 'connection failed'}")
                continue
            metadata = json_object(response) if response.status_code == 200 else None
            if metadata is None:
                reasons.append(f"{url}: HTTP {response.status_code} {media_type(response)}")
                continue
            if metadata.get("issuer") != issuer:  # RFC 8414 §3.3: the metadata must be the issuer's own
                reasons.append(f"{url}: names issuer {metadata.get('issuer')!r}, not {issuer!r}")
                continue
            endpoint = metadata.get("token_endpoint")
            if not isinstance(endpoint, str) or not endpoint:
                reasons.append(f"{url}: no token_endpoint")
                continue
            self._token_url = endpoint
            return endpoint
        problem = TokenEndpointError(
            f"{self.setting}: the token endpoint of issuer {issuer} cannot be found: {'; '.join(reasons)}"
        )
        logger.warning("%s", problem)
        raise problem

    def _failed(self, endpoint: str, reason: str) -> TokenEndpointError:
        problem = TokenEndpointError(
            f"{self.setting}: no access token from {endpoint} for client '{self.config.client_id}': {reason}"
        )
        logger.warning("%s", problem)  # the one line an expected failure gets
        return problem


def _key(resource: str | None, subject: str | None) -> _Key:
    # a digest, so the caller's token itself is not kept as a key beyond the call
    digest = hashlib.sha256(subject.encode()).hexdigest() if subject is not None else None
    return (digest, resource)
