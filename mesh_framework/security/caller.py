"""The caller of the request being served: the `AccessToken` MCP authorization (`/mcp`) or the guarded edge
(routes, A2A) verified, held in a context variable for the request's task and the tasks it starts.

`ToolContext.access_token` reads it when the context is made; a parameter typed `AccessToken` (tools,
routes, A2A skills) receives it. None when the request carried no verified token (no verifier configured).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .access_token import AccessToken

__all__ = ["current_access_token", "serving_caller"]

_CALLER: ContextVar[AccessToken | None] = ContextVar("mesh_caller", default=None)


def current_access_token() -> AccessToken | None:
    """The verified token of the request being served, or None."""
    return _CALLER.get()


@contextmanager
def serving_caller(token: AccessToken | None) -> Iterator[None]:
    """`token` is the caller while the block runs (the block serves one request)."""
    reset = _CALLER.set(token)
    try:
        yield
    finally:
        _CALLER.reset(reset)
