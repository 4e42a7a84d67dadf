"""Bearer-token verifiers for MCP authorization: the `TokenVerifier` interface, static tokens, and JWT access
tokens checked against an authorization server's JWKS (`pyjwt`, the `auth` extra).

A verifier answers `AccessToken` for a token it accepts and None for one it does not; it never raises for a
bad token. Replace the verifier by declaring a component that subclasses `TokenVerifier`.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["AccessToken", "AnyOfVerifier", "JwtVerifier", "StaticTokenVerifier", "TokenVerifier"]

from .access_token import AccessToken

logger = logging.getLogger("mesh_framework.security")


class TokenVerifier:
    """Turns a bearer token into an `AccessToken`, or None when it is not valid (unknown, expired, ...)."""

    async def verify(self, token: str) -> AccessToken | None:
        raise NotImplementedError

    def describe(self) -> str:
        """One line for logs (never a secret)."""
        return type(self).__name__


class StaticTokenVerifier(TokenVerifier):
    """A fixed set of tokens, each granting its scopes (`auth.tokens`). Compared in constant time."""

    def __init__(self, tokens: Iterable[tuple[str, Iterable[str], str]]) -> None:
        self._tokens = [
            (secret.encode(), AccessToken(client, frozenset(scopes))) for secret, scopes, client in tokens
        ]
        if any(not secret for secret, _ in self._tokens):
            raise ValueError("auth.tokens: a token must not be empty")

    async def verify(self, token: str) -> AccessToken | None:
        presented = token.encode()
        found = None
        for secret, grant in self._tokens:  # no early exit: the time does not say which token matched
            if hmac.compare_digest(presented, secret):
                found = grant
        return found

    def describe(self) -> str:
        return f"static tokens ({len(self._tokens)})"


class JwtVerifier(TokenVerifier):
    """JWT access tokens signed by a key of `jwks_url` (cached, refetched when an unknown key id shows up, at
    most once per `refresh_cooldown` seconds),
    with `exp` required and `iss`/`aud` checked when given. Scopes come from `scope` (space-separated) or
    `scp` (a list)."""

    def __init__(
        self,
        jwks_url: str,
        *,
        issuer: str | None = None,
        audience: str | None = None,
        algorithms: Sequence[str] = ("RS256", "ES256"),
        leeway: float = 30.0,
        ssl_context: Any = None,
        refresh_cooldown: float = 5.0,
    ) -> None:
        try:
            import jwt
        except ImportError:
            raise ImportError(
                "auth.jwks_url needs PyJWT: install the 'auth' extra (pip install 'mesh-framework[auth]')"
            ) from None
        self._jwt = jwt
        self.jwks_url = jwks_url
        self.issuer = issuer
        self.audience = audience
        self.algorithms = list(algorithms)
        self.leeway = leeway
        # An unknown key id (a rotated key) fetches the JWKS again, at most once per `refresh_cooldown`
        # seconds (PyJWT's own default, 30 s from any fetch, refuses a new key that long after start-up).
        self._keys = jwt.PyJWKClient(
            jwks_url,
            lifespan=300,
            timeout=5,
            ssl_context=ssl_context,
            cooldown_duration=refresh_cooldown,
        )

    async def verify(self, token: str) -> AccessToken | None:
        jwt = self._jwt
        try:
            key = await asyncio.to_thread(self._keys.get_signing_key_from_jwt, token)
            claims: dict[str, Any] = jwt.decode(
                token,
                key.key,
                algorithms=self.algorithms,
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway,
                options={"require": ["exp"], "verify_aud": self.audience is not None},
            )
        except jwt.PyJWKClientConnectionError as exc:
            logger.warning("cannot fetch the JWKS at %s: %s", self.jwks_url, exc)
            return None
        except jwt.PyJWTError as exc:
            logger.debug("JWT refused: %s", exc)
            return None
        raw = claims.get("scope", claims.get("scp", ""))
        scopes = raw.split() if isinstance(raw, str) else [str(s) for s in raw or []]
        expires = claims.get("exp")
        audience = claims.get("aud")
        return AccessToken(
            client_id=str(claims.get("client_id") or claims.get("azp") or claims.get("sub") or "unknown"),
            scopes=frozenset(scopes),
            subject=claims.get("sub"),
            expires_at=float(expires) if isinstance(expires, (int, float)) else None,
            claims=claims,
            audience=(audience,) if isinstance(audience, str) else tuple(str(a) for a in audience or ()),
        )

    def describe(self) -> str:
        return f"JWT ({self.jwks_url})"


class AnyOfVerifier(TokenVerifier):
    """The first verifier that accepts the token wins (static tokens beside JWTs)."""

    def __init__(self, verifiers: Sequence[TokenVerifier]) -> None:
        self.verifiers = list(verifiers)

    async def verify(self, token: str) -> AccessToken | None:
        for verifier in self.verifiers:
            found = await verifier.verify(token)
            if found is not None:
                return found
        return None

    def describe(self) -> str:
        return " or ".join(v.describe() for v in self.verifiers)
