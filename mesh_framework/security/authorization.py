"""MCP authorization for an agent: an ASGI middleware in front of the MCP endpoint.

As the MCP authorization specification asks of a resource server:
- `GET /.well-known/oauth-protected-resource` (and the same path suffixed with the endpoint's, RFC 9728)
  serves the protected-resource metadata: `resource`, `authorization_servers`, `scopes_supported`,
  `bearer_methods_supported`;
- a request without a bearer token gets 401 with `WWW-Authenticate: Bearer resource_metadata="..."`; an
  invalid or expired token 401 with `error="invalid_token"`;
- a valid token without the scopes the call needs (`auth.required_scopes`, and the called tool's
  `@mesh_tool(scopes=[...])`, the prompt's of a `prompts/get`, the resource's of a `resources/read`, read
  from the JSON-RPC body, every message of a batch) gets 403 with `error="insufficient_scope",
  scope="..."`. Lists are not filtered: a client sees what there is and which scope to ask for (the
  challenge names it), as the MCP authorization specification's step-up flow expects. The body is read
  once, within `server.max_body_bytes` and `server.body_timeout`, and parsed once: the endpoint takes the
  message from the scope (`protocol/body.py`), other apps get the body replayed.
The verified `AccessToken` is left in `scope["state"]["access_token"]` and is the caller while the request
is served (`security/caller.py`: the tool's `ctx.access_token`). Tokens are never logged.

`scopes_supported` in the metadata is the union of every scope a surface of the agent asks for: the
required scopes, the tools', prompts', resources' and routes' (A2A skills take their tool's). A web route
with scopes answers its own challenges with the same header (`scope_refusal`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..config.settings import MeshSettings
from ..protocol.body import BODY_READ, BodyRead
from .caller import serving_caller
from .challenge import WELL_KNOWN, bearer_challenge, scope_refusal
from .tls import client_ssl_context
from .verifiers import AccessToken, AnyOfVerifier, JwtVerifier, StaticTokenVerifier, TokenVerifier

__all__ = [
    "WELL_KNOWN",
    "McpAuthorization",
    "bearer_challenge",
    "protect_agent",
    "scope_refusal",
    "verifier_from_settings",
]

logger = logging.getLogger("mesh_framework.security")

# The scopes one JSON-RPC message asks of the caller, by method and params (prompts/get, resources/read).
RequestScopes = Callable[[str, Mapping[str, Any]], Iterable[str]]


class McpAuthorization:
    """Checks the bearer token of every request to `path`; serves the protected-resource metadata.

    Usage: `McpAuthorization(agent_app, StaticTokenVerifier([("tok", ["calc"], "ci")]), path="/mcp")`.
    Attributes the wrapped app has (`router`, `endpoint`, ...) stay reachable through this one.
    """

    def __init__(
        self,
        app: Any,
        verifier: TokenVerifier,
        *,
        path: str,
        tool_scopes: Callable[[str], Iterable[str]] = lambda _name: (),
        scoped_tools: bool = False,
        request_scopes: RequestScopes | None = None,
        required_scopes: Sequence[str] = (),
        scopes_supported: Sequence[str] = (),
        resource: str | None = None,
        authorization_servers: Sequence[str] = (),
        resource_name: str | None = None,
        max_body_bytes: int = 4 * 1024 * 1024,
        body_timeout: float = 30.0,
    ) -> None:
        self.app = app
        self.verifier = verifier
        self.path = path
        self.tool_scopes = tool_scopes
        self.scoped_tools = scoped_tools
        self.request_scopes = request_scopes  # prompts/get, resources/read: read the body for them too
        self.required_scopes = frozenset(required_scopes)
        self.scopes_supported = sorted({*scopes_supported, *required_scopes})
        self.resource = resource
        self.authorization_servers = list(authorization_servers)
        self.resource_name = resource_name
        self.max_body_bytes = max_body_bytes
        self.body_timeout = body_timeout
        self._metadata_paths = {WELL_KNOWN, WELL_KNOWN + path}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if path in self._metadata_paths:
            await self._metadata(scope, send)
            return
        if path != self.path:
            await self.app(scope, receive, send)
            return
        headers = {name: value for name, value in scope["headers"]}
        credentials = headers.get(b"authorization", b"")
        if credentials[:7].lower() != b"bearer " or not credentials[7:].strip():
            await self._challenge(scope, send, 401, None, "a bearer token is required")
            return
        presented = credentials[7:].strip().decode("latin-1")
        access = await self._verify(presented)
        if access is None:
            await self._challenge(
                scope, send, 401, "invalid_token", "the access token is not valid or has expired"
            )
            return
        needed = set(self.required_scopes)
        if self.scoped_tools or self.request_scopes is not None:
            messages, receive = await self._messages(scope, headers.get(b"content-length"), receive)
            for method, params in messages:
                if method == "tools/call":
                    name = params.get("name")
                    needed.update(self.tool_scopes(name) if isinstance(name, str) else ())
                elif self.request_scopes is not None:
                    needed.update(self.request_scopes(method, params))
        if not needed <= access.scopes:
            await self._challenge(
                scope,
                send,
                403,
                "insufficient_scope",
                "the access token lacks scope(s) " + " ".join(sorted(needed - access.scopes)),
                scope_param=" ".join(sorted(needed)),
            )
            return
        scope.setdefault("state", {})["access_token"] = access
        with serving_caller(access, presented):  # the tool's `ctx.access_token` (security/caller.py)
            await self.app(scope, receive, send)

    async def _verify(self, token: str) -> AccessToken | None:
        try:
            return await self.verifier.verify(token)
        except Exception as exc:  # a verifier's failure is a refusal, never a traceback to the client
            logger.warning(
                "token verifier %s failed: %s: %s", self.verifier.describe(), type(exc).__name__, exc
            )
            return None

    async def _messages(
        self, scope: dict[str, Any], length: bytes | None, receive: Any
    ) -> tuple[list[tuple[str, Mapping[str, Any]]], Any]:
        """The methods a request asks for, with their params, from its JSON-RPC body (read and parsed
        once, left in the scope for the endpoint and replayed to other apps). The body, not the `Mcp-Name`
        header: a handshake-era request's headers are not checked against it. A body refused (too large,
        too slow) or not JSON asks for nothing: the endpoint answers it without calling anything."""
        try:
            declared = int(length) if length is not None else -1
        except ValueError:
            declared = -1
        read = await BodyRead.of(
            receive, max_bytes=self.max_body_bytes, timeout=self.body_timeout, declared=declared
        )
        scope[BODY_READ] = read
        messages: list[tuple[str, Mapping[str, Any]]] = []
        parsed = read.message
        for item in parsed if isinstance(parsed, list) else [parsed]:
            if isinstance(item, dict) and isinstance(item.get("method"), str):
                params = item.get("params")
                messages.append((item["method"], params if isinstance(params, dict) else {}))
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": read.body, "more_body": False}
            return dict(await receive())

        return messages, replay

    def _base(self, scope: dict[str, Any]) -> str:
        host = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"host"), None)
        if host is None:
            server = scope.get("server") or ("localhost", None)
            host = f"{server[0]}:{server[1]}" if server[1] else str(server[0])
        return f"{scope.get('scheme', 'http')}://{host}"

    def resource_for(self, scope: dict[str, Any]) -> str:
        return self.resource or self._base(scope) + self.path

    async def _metadata(self, scope: dict[str, Any], send: Any) -> None:
        if scope.get("method") not in ("GET", "HEAD"):
            await _send_json(send, 405, {"error": "method_not_allowed"}, [(b"allow", b"GET, HEAD")])
            return
        document: dict[str, Any] = {
            "resource": self.resource_for(scope),
            "authorization_servers": self.authorization_servers,
            "scopes_supported": self.scopes_supported,
            "bearer_methods_supported": ["header"],
        }
        if self.resource_name:
            document["resource_name"] = self.resource_name
        await _send_json(
            send, 200, document, [(b"cache-control", b"max-age=300")], head=scope["method"] == "HEAD"
        )

    async def _challenge(
        self,
        scope: dict[str, Any],
        send: Any,
        status: int,
        error: str | None,
        description: str,
        *,
        scope_param: str | None = None,
    ) -> None:
        metadata = self._base(scope) + WELL_KNOWN + self.path
        wanted = scope_param or (" ".join(sorted(self.required_scopes)) if self.required_scopes else None)
        challenge = bearer_challenge(metadata, error, description, wanted).encode("latin-1")
        body = {"error": error or "unauthorized", "error_description": description}
        await _send_json(
            send, status, body, [(b"www-authenticate", challenge)], head=scope.get("method") == "HEAD"
        )


async def _send_json(
    send: Any, status: int, document: Any, extra: list[tuple[bytes, bytes]], *, head: bool = False
) -> None:
    body = json.dumps(document).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *extra]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else body})


def verifier_from_settings(settings: MeshSettings) -> TokenVerifier | None:
    """Static tokens (`auth.tokens`) and/or JWTs (`auth.jwks_url`); None when neither is configured."""
    auth = settings.auth
    verifiers: list[TokenVerifier] = []
    if auth.tokens:
        verifiers.append(
            StaticTokenVerifier((t.token.get_secret_value(), t.scopes, t.client_id) for t in auth.tokens)
        )
    if auth.jwks_url:
        context = client_ssl_context(settings.tls) if auth.jwks_url.startswith("https:") else None
        verifiers.append(
            JwtVerifier(
                auth.jwks_url,
                issuer=auth.issuer,
                audience=auth.audience or auth.resource,
                algorithms=auth.algorithms,
                leeway=auth.leeway,
                refresh_cooldown=auth.jwks_refresh_cooldown,
                ssl_context=context if context is not False else None,
            )
        )
    if not verifiers:
        return None
    return verifiers[0] if len(verifiers) == 1 else AnyOfVerifier(verifiers)


def protect_agent(
    settings: MeshSettings,
    tools: Any,
    asgi: Any,
    verifier: TokenVerifier | None = None,
    *,
    features: Any = None,
    route_scopes: Mapping[str, Sequence[str]] | None = None,
) -> Any:
    """`asgi` behind `McpAuthorization` when a verifier is given (a user component) or configured; else
    `asgi` itself. `features`: the endpoint's prompts and resources (protocol/features.py
    FeatureHandlers: `declared_scopes()`, `scopes_needed(method, params)`); `route_scopes`: each scoped
    web route's scopes, by route. A tool, prompt, resource or route that declares scopes with no verifier
    is a wiring error (ValueError)."""
    verifier = verifier or verifier_from_settings(settings)
    declared = {w.name: tuple(getattr(w.spec, "scopes", ())) for w in tools}
    scoped = sorted(name for name, scopes in declared.items() if scopes)
    served: Mapping[str, Sequence[str]] = features.declared_scopes() if features is not None else {}
    others = {**served, **(route_scopes or {})}
    if verifier is None:
        if scoped or others:
            named = [f"tool {name}" for name in scoped] + sorted(others)
            raise ValueError(
                f"{', '.join(named)} declare(s) scopes, but no token verifier is configured: set "
                "auth.tokens or auth.jwks_url, or declare a TokenVerifier component"
            )
        return asgi

    def tool_scopes(name: str) -> tuple[str, ...]:
        wrapper = tools.get(name)
        return tuple(getattr(wrapper.spec, "scopes", ())) if wrapper is not None else ()

    auth = settings.auth
    logger.info("MCP authorization on %s: %s", settings.server.path, verifier.describe())
    return McpAuthorization(
        asgi,
        verifier,
        path=settings.server.path,
        tool_scopes=tool_scopes,
        scoped_tools=bool(scoped),
        request_scopes=features.scopes_needed if features is not None and served else None,
        required_scopes=auth.required_scopes,
        scopes_supported=[s for scopes in (*declared.values(), *others.values()) for s in scopes],
        resource=auth.resource,
        authorization_servers=auth.authorization_servers,
        resource_name=settings.agent.name,
        max_body_bytes=settings.server.max_body_bytes,
        body_timeout=settings.server.body_timeout,
    )
