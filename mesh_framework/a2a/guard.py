"""Bearer tokens on the A2A endpoints, with the agent's MCP authorization settings (`auth.*`).

The cards stay public (A2A clients read them before they authenticate, as MCP Mesh serves them); each
JSON-RPC request needs a valid token with `auth.required_scopes` and the scopes of the skill it runs (the
one `requests.decide_skill` names). Refusals are JSON-RPC errors in MCP Mesh's shape: 401 with `-32001`,
403 with `-32003`, with the RFC 6750 challenge an OAuth client reads (`error="invalid_token"` for a token
refused, which the caller may renew and send again; `error="insufficient_scope"` and the scopes wanted;
the agent's protected-resource metadata). The verified caller owns the tasks the request makes.
"""

from __future__ import annotations

import logging

from starlette.requests import Request
from starlette.responses import JSONResponse

from ..security.challenge import WELL_KNOWN, bearer_challenge
from ..security.verifiers import AccessToken, TokenVerifier
from .skills import A2aSkill

__all__ = ["A2aGuard"]

logger = logging.getLogger("mesh_framework.a2a")


def _refuse(
    request: Request,
    status: int,
    code: int,
    message: str,
    *,
    error: str | None = None,
    description: str = "",
    scope: str | None = None,
) -> JSONResponse:
    body = {"jsonrpc": "2.0", "error": {"code": code, "message": message}, "id": None}
    metadata = str(request.base_url).rstrip("/") + WELL_KNOWN
    challenge = bearer_challenge(metadata, error, description, scope)
    return JSONResponse(body, status_code=status, headers={"WWW-Authenticate": challenge})


class A2aGuard:
    def __init__(self, verifier: TokenVerifier, required_scopes: list[str]) -> None:
        self.verifier = verifier
        self.required = frozenset(required_scopes)

    async def check(self, request: Request, skill: A2aSkill | None) -> AccessToken | JSONResponse:
        """The verified caller when the request may run `skill`, else the answer that refuses it."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        token = token.strip()
        needed = self.required | frozenset(skill.wrapper.spec.scopes if skill is not None else ())
        if scheme.lower() != "bearer" or not token:
            message = "Authentication required: missing Authorization: Bearer <token> header"
            return _refuse(request, 401, -32001, message, scope=" ".join(sorted(needed)) or None)
        try:
            granted = await self.verifier.verify(token)
        except Exception as exc:  # a verifier's failure is a refusal, never a traceback
            logger.warning("A2A token verifier %s failed: %s", self.verifier.describe(), type(exc).__name__)
            granted = None
        if granted is None:
            message = "Authentication failed: the bearer token is not valid or has expired"
            invalid = "the access token is not valid or has expired"
            return _refuse(request, 401, -32001, message, error="invalid_token", description=invalid)
        missing = sorted(needed - granted.scopes)
        if missing:
            message = f"Insufficient scope: this call needs the scope(s) {', '.join(missing)}"
            lacks = "the access token lacks scope(s) " + " ".join(missing)
            wanted = " ".join(sorted(needed))
            return _refuse(
                request, 403, -32003, message, error="insufficient_scope", description=lacks, scope=wanted
            )
        return granted
