"""Bearer challenges (RFC 6750 §3) of a protected resource that names its metadata (RFC 9728 §5.1): the
`WWW-Authenticate` value, and why a caller is refused by a surface that needs scopes (no token: 401; a
refused token: 401 `invalid_token`; too few scopes: 403 `insufficient_scope`). Used by MCP authorization
(`security/authorization.py`) and by scoped web routes; it loads no verifier."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["WELL_KNOWN", "bearer_challenge", "scope_refusal"]

WELL_KNOWN = "/.well-known/oauth-protected-resource"


def _quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def bearer_challenge(
    metadata_url: str, error: str | None = None, description: str = "", scope: str | None = None
) -> str:
    """A `WWW-Authenticate: Bearer` value (RFC 6750 §3, RFC 9728 §5.1): the error when there is one, the
    scope wanted, and where the protected-resource metadata is."""
    parts = []
    if error is not None:
        parts += [f"error={_quote(error)}", f"error_description={_quote(description)}"]
    if scope:
        parts.append(f"scope={_quote(scope)}")
    parts.append(f"resource_metadata={_quote(metadata_url)}")
    return "Bearer " + ", ".join(parts)


def scope_refusal(
    caller: Any, presented: bool, needed: Iterable[str], metadata_url: str
) -> tuple[int, dict[str, str], str] | None:
    """Why a request to a surface that needs `needed` scopes is refused, as (status, JSON body,
    WWW-Authenticate), or None when `caller` (the verified AccessToken, or None) has them. `presented`:
    a bearer token was sent (so no caller means it was refused)."""
    wanted = frozenset(needed)
    if caller is None:
        if presented:
            error, description = "invalid_token", "the access token is not valid or has expired"
            return 401, _error(error, description), bearer_challenge(metadata_url, error, description)
        description = "a bearer token is required"
        body = {"error": "unauthorized", "error_description": description}
        return 401, body, bearer_challenge(metadata_url, scope=" ".join(sorted(wanted)) or None)
    missing = wanted - caller.scopes
    if not missing:
        return None
    description = "the access token lacks scope(s) " + " ".join(sorted(missing))
    challenge = bearer_challenge(metadata_url, "insufficient_scope", description, " ".join(sorted(wanted)))
    return 403, _error("insufficient_scope", description), challenge


def _error(error: str, description: str) -> dict[str, str]:
    return {"error": error, "error_description": description}
