"""A token endpoint's answer, read one way by the agent's client credentials and the user's catalog sign-in:
a Bearer token's body, or one phrase saying what is wrong (the endpoint's error code kept for the caller)."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from mesh_framework.security.token_response import TokenResponseError, token_response

pytestmark = pytest.mark.timeout(10)

JSON = {"content-type": "application/json; charset=utf-8"}


def answer(status: int, body: Any = None, *, html: str | None = None) -> httpx2.Response:
    if html is not None:
        return httpx2.Response(status, text=html, headers={"content-type": "text/html"})
    return httpx2.Response(status, json=body, headers=JSON)


def test_a_bearer_token_response_is_its_body() -> None:
    body = {"access_token": "t0k", "token_type": "bearer", "expires_in": 60}
    assert token_response(answer(200, body)) == body


@pytest.mark.parametrize(
    ("response", "problem", "error"),
    [
        (
            answer(400, {"error": "invalid_grant", "error_description": "code expired"}),
            "refused: HTTP 400 invalid_grant (code expired)",
            "invalid_grant",
        ),
        (answer(401, {"error": "invalid_client"}), "refused: HTTP 401 invalid_client", "invalid_client"),
        (answer(502, html="<h1>bad gateway</h1>"), "answered HTTP 502 text/html", None),
        (answer(200, html="<p>sign in</p>"), "answered text/html, not a JSON token response", None),
        (answer(200, ["t0k"]), "answered application/json, not a JSON token response", None),
        (
            answer(200, {"access_token": "", "token_type": "Bearer"}),
            "answered application/json without an access_token",
            None,
        ),
        (
            answer(200, {"access_token": "t0k", "token_type": "mac"}),
            "issued a token of type 'mac', not Bearer",
            None,
        ),
        (answer(200, {"access_token": "t0k"}), "issued a token of type None, not Bearer", None),
    ],
)
def test_what_is_wrong_with_an_answer_is_one_phrase(
    response: httpx2.Response, problem: str, error: str | None
) -> None:
    with pytest.raises(TokenResponseError) as raised:
        token_response(response)
    assert str(raised.value) == problem
    assert raised.value.error == error
