"""Interactive sign-in of the user to a catalog server behind OAuth (`mesh catalog login NAME`), as the MCP
authorization specification has an MCP client do it: authorization code with PKCE (S256), the client
identified by a client ID metadata document where the authorization server supports them, a loopback
redirect (RFC 8252).

1. The server is called (an MCP `initialize`); a `401` names its protected-resource metadata
   (`WWW-Authenticate: Bearer resource_metadata=...`), else the RFC 9728 well-known URIs are read.
2. The metadata names the resource (on the server's origin, a prefix of its URL) and the authorization
   server, whose RFC 8414 / OpenID Connect metadata names the endpoints; it must offer S256.
3. The client id: the document URL (`mcp.oauth_client_id_url`) where `client_id_metadata_document_supported`
   says the server fetches them, else a client registered there (`mcp.oauth_client_id`).
4. The browser is sent to the authorization endpoint (state, PKCE challenge, RFC 8707 resource, scope); a
   listener on 127.0.0.1 (an ephemeral port) takes the redirect, checks the state (and RFC 9207 `iss`)
   and answers a page saying the window can be closed.
5. The code and the PKCE verifier are exchanged for tokens, kept by `UserTokenStore`.

`refresh` renews a sign-in with its refresh token (`catalog/user_auth.py` does so on expiry). Every
failure is a `LoginError` whose message says what went wrong and where, on one line.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import html
import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2

from .._frozen import frozen
from ..config.settings import McpLoginSettings
from ..errors import MeshError
from ..security.token_response import TokenResponseError, json_object, media_type, token_response
from .user_tokens import UserLogin, UserTokenStore

__all__ = ["CALLBACK_PATH", "LoginError", "client_metadata_document", "refresh", "sign_in"]

logger = logging.getLogger("mesh_framework.catalog")

CALLBACK_PATH = "/callback"
_ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "mesh catalog login", "version": "1"},
    },
}


class LoginError(MeshError):
    """A sign-in could not be made or renewed; the message says why, on one line."""


@frozen
class _Plan:
    """What the metadata said: where to send the user, where to get tokens, who we are to them."""

    issuer: str
    resource: str
    authorization_endpoint: str
    token_endpoint: str
    client_id: str
    scope: str | None
    iss_required: bool


def client_metadata_document(client_id_url: str, client_name: str = "mesh") -> dict[str, Any]:
    """The client ID metadata document to publish at `client_id_url` for `mesh catalog login`: a public
    native client whose loopback redirect URI matches on any port."""
    return {
        "client_id": client_id_url,
        "client_name": client_name,
        "application_type": "native",
        "redirect_uris": [f"http://127.0.0.1{CALLBACK_PATH}"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }


async def sign_in(
    server: str,
    url: str,
    client: McpLoginSettings,
    *,
    http: httpx2.AsyncClient,
    store: UserTokenStore,
    show: Callable[[str], None],
    open_browser: Callable[[str], object] | None = None,
    timeout: float = 300.0,
) -> tuple[UserLogin, str]:
    """Sign the user in to catalog server `server` at `url` and keep the tokens; the sign-in and the path
    of its file. `show` tells the user where to go; `open_browser`, when given, opens that URL."""
    plan = await _plan(server, url, client, http)
    verifier = secrets.token_urlsafe(64)  # 86 characters of the RFC 7636 alphabet
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    state = secrets.token_urlsafe(32)
    with _Listener() as listener:
        redirect_uri = f"http://127.0.0.1:{listener.port}{CALLBACK_PATH}"
        query = {
            "response_type": "code",
            "client_id": plan.client_id,
            "redirect_uri": redirect_uri,
            "state": state,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "resource": plan.resource,
        }
        if plan.scope:
            query["scope"] = plan.scope
            if "offline_access" in plan.scope.split():  # OpenID Connect asks consent for it
                query["prompt"] = "consent"
        separator = "&" if "?" in plan.authorization_endpoint else "?"
        authorization_url = plan.authorization_endpoint + separator + urlencode(query)
        show(f"Sign in to '{server}' in your browser: {authorization_url}")
        if open_browser is not None:
            open_browser(authorization_url)
        answer = await listener.answer(state, plan, timeout)
    form = {
        "grant_type": "authorization_code",
        "code": answer,
        "redirect_uri": redirect_uri,
        "client_id": plan.client_id,
        "code_verifier": verifier,
        "resource": plan.resource,
    }
    tokens = await _token_request(http, plan.token_endpoint, form, f"no tokens for '{server}'")
    login = _login(
        url=url,
        issuer=plan.issuer,
        resource=plan.resource,
        client_id=plan.client_id,
        token_endpoint=plan.token_endpoint,
        tokens=tokens,
        before=None,
    )
    return login, str(store.save(login))


async def refresh(login: UserLogin, http: httpx2.AsyncClient, *, server: str) -> UserLogin:
    """`login` renewed with its refresh token (LoginError when it has none or the server refuses)."""
    if not login.refresh_token:
        raise LoginError(
            f"the sign-in to '{server}' ({login.server_url}) has expired and has no refresh token; "
            f"run `mesh catalog login {server}` again"
        )
    form = {
        "grant_type": "refresh_token",
        "refresh_token": login.refresh_token,
        "client_id": login.client_id,
        "resource": login.resource,
    }
    what = f"the sign-in to '{server}' cannot be renewed"
    tokens = await _token_request(http, login.token_endpoint, form, what, again=server)
    return _login(
        url=login.server_url,
        issuer=login.issuer,
        resource=login.resource,
        client_id=login.client_id,
        token_endpoint=login.token_endpoint,
        tokens=tokens,
        before=login,
    )


def _login(
    *,
    url: str,
    issuer: str,
    resource: str,
    client_id: str,
    token_endpoint: str,
    tokens: dict[str, Any],
    before: UserLogin | None,
) -> UserLogin:
    lifetime = tokens.get("expires_in")
    digits = isinstance(lifetime, str) and lifetime.isdigit()
    number = isinstance(lifetime, (int, float)) and not isinstance(lifetime, bool)
    seconds = float(lifetime) if digits or number else None  # type: ignore[arg-type]
    scope = tokens.get("scope")
    fresh = UserLogin(
        server_url=url,
        issuer=issuer,
        resource=resource,
        client_id=client_id,
        token_endpoint=token_endpoint,
        access_token=tokens["access_token"],
        refresh_token=tokens.get("refresh_token") if isinstance(tokens.get("refresh_token"), str) else None,
        expires_at=time.time() + seconds if seconds and seconds > 0 else None,
        lifetime=seconds if seconds and seconds > 0 else None,
        scope=scope if isinstance(scope, str) else None,
    )
    if before is not None and fresh.refresh_token is None:  # RFC 6749 §6: the old one stays valid
        fresh = replace(fresh, refresh_token=before.refresh_token)
    return fresh


async def _token_request(
    http: httpx2.AsyncClient, endpoint: str, form: dict[str, str], what: str, *, again: str | None = None
) -> dict[str, Any]:
    try:
        response = await http.post(endpoint, data=form, headers={"accept": "application/json"})
    except httpx2.HTTPError as exc:
        raise LoginError(f"{what}: the token endpoint {endpoint} cannot be reached ({_said(exc)})") from None
    try:
        return token_response(response)
    except TokenResponseError as exc:
        hint = ""
        if again and exc.error == "invalid_grant":  # the refresh token is spent, revoked or expired
            hint = f"; run `mesh catalog login {again}` again"
        raise LoginError(f"{what}: {endpoint} {exc}{hint}") from None


async def _plan(server: str, url: str, client: McpLoginSettings, http: httpx2.AsyncClient) -> _Plan:
    from mcp.client.auth.utils import extract_resource_metadata_from_www_auth, extract_scope_from_www_auth

    where = f"'{server}' ({url})"
    try:
        probe = await http.post(url, json=_INITIALIZE, headers=_ACCEPT)
    except httpx2.HTTPError as exc:
        raise LoginError(f"{where} cannot be reached: {_said(exc)}") from None
    await probe.aread()
    challenged = probe.status_code == 401
    metadata_url = extract_resource_metadata_from_www_auth(probe) if challenged else None
    resource_metadata = await _resource_metadata(where, url, http, metadata_url, probe.status_code)
    resource = resource_metadata["resource"]
    issuer = resource_metadata["authorization_servers"][0]
    metadata = await _server_metadata(where, url, issuer, http)
    endpoints = [metadata.get("authorization_endpoint"), metadata.get("token_endpoint")]
    if not all(isinstance(e, str) and urlsplit(e).scheme in ("http", "https") for e in endpoints):
        raise LoginError(
            f"the authorization server {issuer} names no authorization_endpoint and token_endpoint"
        )
    methods = metadata.get("code_challenge_methods_supported")
    if not isinstance(methods, list) or "S256" not in methods:  # the MCP specification: refuse without it
        raise LoginError(
            f"the authorization server {issuer} does not offer PKCE with S256 "
            f"(code_challenge_methods_supported: {methods!r}); a sign-in without it is refused"
        )
    challenge_scope = extract_scope_from_www_auth(probe) if challenged else None
    return _Plan(
        issuer=issuer,
        resource=resource,
        authorization_endpoint=str(endpoints[0]),
        token_endpoint=str(endpoints[1]),
        client_id=_client_id(issuer, client, metadata.get("client_id_metadata_document_supported") is True),
        scope=_scope(client, challenge_scope, resource_metadata),
        iss_required=metadata.get("authorization_response_iss_parameter_supported") is True,
    )


async def _resource_metadata(
    where: str, url: str, http: httpx2.AsyncClient, metadata_url: str | None, status: int
) -> dict[str, Any]:
    """The server's protected-resource metadata (RFC 9728): the challenge's URL, else the well-known ones;
    its resource must contain the server's URL, and it must name an authorization server."""
    from mcp.client.auth.utils import build_protected_resource_metadata_discovery_urls
    from mcp.shared.auth_utils import check_resource_allowed, resource_url_from_server_url

    reasons = []
    for candidate in build_protected_resource_metadata_discovery_urls(metadata_url, url):
        document, reason = await _get_json(http, candidate)
        if document is None:
            reasons.append(f"{candidate}: {reason}")
            continue
        resource, servers = document.get("resource"), document.get("authorization_servers")
        if not isinstance(resource, str) or not check_resource_allowed(
            resource_url_from_server_url(url), resource
        ):
            reasons.append(f"{candidate} names resource {resource!r}, which {url} is not part of")
            continue
        if not isinstance(servers, list) or not servers or not isinstance(servers[0], str):
            reasons.append(f"{candidate} names no authorization_servers")
            continue
        return document
    if status != 401:
        raise LoginError(
            f"{where} is not behind OAuth: it answered HTTP {status} without a Bearer challenge and "
            "publishes no protected-resource metadata; there is nothing to sign in to"
        )
    raise LoginError(
        f"{where} asks for a token but its protected-resource metadata (RFC 9728) cannot be used: "
        + "; ".join(reasons)
    )


async def _server_metadata(where: str, url: str, issuer: str, http: httpx2.AsyncClient) -> dict[str, Any]:
    """The authorization server's metadata (RFC 8414, else OpenID Connect discovery), naming `issuer`."""
    from mcp.client.auth.utils import build_oauth_authorization_server_metadata_discovery_urls

    reasons = []
    for candidate in build_oauth_authorization_server_metadata_discovery_urls(issuer, url):
        document, reason = await _get_json(http, candidate)
        if document is None:
            reasons.append(f"{candidate}: {reason}")
            continue
        if document.get("issuer") != issuer:  # RFC 8414 §3.3
            reasons.append(f"{candidate} names issuer {document.get('issuer')!r}, not {issuer!r}")
            continue
        return document
    raise LoginError(
        f"the authorization server {issuer} of {where} has no usable metadata: {'; '.join(reasons)}"
    )


def _client_id(issuer: str, client: McpLoginSettings, cimd: bool) -> str:
    """The document URL where the server fetches client ID metadata documents, else the registered id."""
    if cimd and client.client_id_url:
        return client.client_id_url
    if client.client_id:
        return client.client_id
    if cimd:
        raise LoginError(
            f"the authorization server {issuer} takes a client ID metadata document as client id: "
            "publish one (see docs/identity.md) and set mcp.oauth_client_id_url (or --client-id-url) "
            "to its https URL"
        )
    raise LoginError(
        f"the authorization server {issuer} does not support client ID metadata documents: register a "
        f"public client there with the redirect URI http://127.0.0.1{CALLBACK_PATH} and set "
        "mcp.oauth_client_id (or --client-id)"
    )


def _scope(client: McpLoginSettings, challenged: str | None, resource_metadata: dict[str, Any]) -> str | None:
    """The scopes set, else the challenge's, else every scope the resource lists (none: no scope)."""
    if client.scopes:
        return " ".join(client.scopes)
    if challenged:
        return challenged
    supported = resource_metadata.get("scopes_supported")
    listed = [s for s in supported if isinstance(s, str)] if isinstance(supported, list) else []
    return " ".join(listed) or None


async def _get_json(http: httpx2.AsyncClient, url: str) -> tuple[dict[str, Any] | None, str]:
    try:
        response = await http.get(url, headers={"accept": "application/json"})
    except httpx2.HTTPError as exc:
        return None, _said(exc)
    if response.status_code != 200:
        return None, f"HTTP {response.status_code}"
    body = json_object(response)
    return (body, "") if body is not None else (None, f"{media_type(response)}, not a JSON object")


def _said(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


_PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>mesh</title></head>"
    "<body style='font-family: sans-serif; margin: 3em'><h1>{title}</h1><p>{text}</p>"
    "<p>You can close this window.</p></body></html>"
)


class _Listener:
    """The loopback redirect listener: one answer taken (the first request to the callback path)."""

    def __init__(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._answer: asyncio.Future[dict[str, str]] = self._loop.create_future()
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                if parts.path != CALLBACK_PATH:
                    self._page(404, "Not found", "This is mesh's sign-in listener; nothing is here.")
                    return
                params = {k: v[0] for k, v in parse_qs(parts.query).items()}
                self._page(200, *listener.page(params))
                self.wfile.flush()
                listener.take(params)  # once the page is sent: the login may end the process right away

            def _page(self, status: int, title: str, text: str) -> None:
                body = _PAGE.format(title=html.escape(title), text=html.escape(text)).encode()
                self.send_response(status)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(body)))
                self.send_header("cache-control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True, name="mesh-login")

    def __enter__(self) -> _Listener:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)

    @staticmethod
    def page(params: dict[str, str]) -> tuple[str, str]:
        """The title and text of the page answering the redirect."""
        if "error" in params:
            return "Sign-in refused", f"The authorization server said: {params['error']}."
        if "code" in params:
            return "Signed in", "mesh received the sign-in; back to the terminal."
        return "Not a sign-in answer", "This address takes the authorization server's answer only."

    def take(self, params: dict[str, str]) -> None:
        """Hand the redirect's parameters to the waiting login (the first answer only)."""
        if "error" in params or "code" in params:
            self._loop.call_soon_threadsafe(self._set, params)

    def _set(self, params: dict[str, str]) -> None:
        if not self._answer.done():
            self._answer.set_result(params)

    async def answer(self, state: str, plan: _Plan, timeout: float) -> str:
        """The code of the redirect for this login (LoginError: refused, another login's, none in time)."""
        try:
            params = await asyncio.wait_for(asyncio.shield(self._answer), timeout)
        except TimeoutError:
            raise LoginError(f"no sign-in within {timeout:g}s; run the login again") from None
        if not secrets.compare_digest(params.get("state", ""), state):
            raise LoginError(
                "the redirect's state does not match this login's: refused (an answer to another login, or "
                "forged); run the login again"
            )
        if "error" in params:
            detail = params["error"]
            if params.get("error_description"):
                detail += f" ({params['error_description']})"
            raise LoginError(f"the authorization server {plan.issuer} refused the sign-in: {detail}")
        iss = params.get("iss")
        if (iss is not None and iss != plan.issuer) or (iss is None and plan.iss_required):  # RFC 9207
            raise LoginError(f"the redirect names issuer {iss!r}, not {plan.issuer!r}: refused")
        return params["code"]
