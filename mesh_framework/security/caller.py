"""The caller of the request being served: the `AccessToken` MCP authorization (`/mcp`) or the guarded edge
(routes, A2A) verified, held in a context variable for the request's task and the tasks it starts.

`ToolContext.access_token` reads it when the context is made; a parameter typed `AccessToken` (tools,
routes, A2A skills) receives it. None when the request carried no verified token (no verifier configured).

The token as presented is kept beside it, in a variable of its own that only the outbound identity reads
(`security/outbound.py`: a token exchange on the caller's behalf, RFC 8693). `AccessToken` deliberately
does not hold it, so nothing that shows or logs the caller can show the token.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .access_token import AccessToken

__all__ = ["PresentedToken", "current_access_token", "presented_token", "serving_caller"]


class PresentedToken:
    """The bearer token a verified caller presented, with what it grants. Its repr never shows it."""

    __slots__ = ("access", "value")

    def __init__(self, value: str, access: AccessToken) -> None:
        self.value = value
        self.access = access

    def __repr__(self) -> str:
        return f"PresentedToken(client_id={self.access.client_id!r}, subject={self.access.subject!r})"


_CALLER: ContextVar[AccessToken | None] = ContextVar("mesh_caller", default=None)
_PRESENTED: ContextVar[PresentedToken | None] = ContextVar("mesh_caller_token", default=None)


def current_access_token() -> AccessToken | None:
    """The verified token of the request being served, or None."""
    return _CALLER.get()


def presented_token() -> PresentedToken | None:
    """The token the caller of the request being served presented (verified), or None."""
    return _PRESENTED.get()


@contextmanager
def serving_caller(token: AccessToken | None, presented: str | None = None) -> Iterator[None]:
    """`token` is the caller while the block runs (the block serves one request); `presented` the bearer
    token it was verified from."""
    reset = _CALLER.set(token)
    kept = _PRESENTED.set(PresentedToken(presented, token) if token is not None and presented else None)
    try:
        yield
    finally:
        _PRESENTED.reset(kept)
        _CALLER.reset(reset)
