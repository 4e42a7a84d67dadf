"""A token endpoint's answer (RFC 6749 §5.1, §5.2), read one way by each OAuth client of the framework: this
agent's client credentials (security/client_credentials.py) and the user's sign-in to a catalog server
(catalog/oauth_login.py). What is wrong with an answer is said in one phrase, put after the endpoint."""

from __future__ import annotations

from typing import Any

import httpx2

__all__ = ["TokenResponseError", "json_object", "media_type", "token_response"]


class TokenResponseError(Exception):
    """What is wrong with a token endpoint's answer, in one phrase (`refused: HTTP 400 invalid_grant`);
    `error` is the endpoint's error code (RFC 6749 §5.2) when it sent one."""

    def __init__(self, problem: str, *, error: str | None = None) -> None:
        super().__init__(problem)
        self.error = error


def json_object(response: httpx2.Response) -> dict[str, Any] | None:
    """The answer's body when it is a JSON object, else None."""
    try:
        body = response.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def media_type(response: httpx2.Response) -> str:
    """The answer's media type (`text/html`), or `without a content type`."""
    return response.headers.get("content-type", "without a content type").split(";")[0]


def token_response(response: httpx2.Response) -> dict[str, Any]:
    """The body of a successful answer: a JSON object with an `access_token` of `token_type` Bearer;
    TokenResponseError saying what is wrong otherwise."""
    body = json_object(response)
    if response.status_code != 200:
        error = body.get("error") if body is not None else None
        if body is not None and isinstance(error, str):
            detail = error
            if isinstance(body.get("error_description"), str):
                detail += f" ({body['error_description']})"
            raise TokenResponseError(f"refused: HTTP {response.status_code} {detail}", error=error)
        raise TokenResponseError(f"answered HTTP {response.status_code} {media_type(response)}")
    if body is None:
        raise TokenResponseError(f"answered {media_type(response)}, not a JSON token response")
    value = body.get("access_token")
    if not isinstance(value, str) or not value:
        raise TokenResponseError(f"answered {media_type(response)} without an access_token")
    kind = body.get("token_type")
    if not isinstance(kind, str) or kind.lower() != "bearer":
        raise TokenResponseError(f"issued a token of type {kind!r}, not Bearer")
    return body
