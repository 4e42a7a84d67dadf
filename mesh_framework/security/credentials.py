"""Credentials our proxies send to other agents: a bearer token per capability (`auth.dependency_tokens`),
else the agent's own (`auth.client_token`)."""

from __future__ import annotations

from ..config.settings import AuthSettings

__all__ = ["credential_headers"]


def credential_headers(auth: AuthSettings, capability: str) -> dict[str, str]:
    """The headers a call to `capability` carries (lowercase names; empty without a token)."""
    secret = auth.dependency_tokens.get(capability) or auth.client_token
    return {"authorization": f"Bearer {secret.get_secret_value()}"} if secret is not None else {}
