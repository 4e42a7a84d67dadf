"""Security: TLS for servers and clients, bearer-token verification and MCP authorization for agents.

The names below are loaded on first use (PEP 562): an agent that only needs TLS or credentials does not
import the token verifiers.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .tls import ServerTls, client_ssl_context, server_tls
    from .verifiers import AccessToken, AnyOfVerifier, JwtVerifier, StaticTokenVerifier, TokenVerifier

__all__ = [
    "AccessToken",
    "AnyOfVerifier",
    "JwtVerifier",
    "ServerTls",
    "StaticTokenVerifier",
    "TokenVerifier",
    "client_ssl_context",
    "server_tls",
]

_LOCATIONS = {
    "AccessToken": ".verifiers",
    "AnyOfVerifier": ".verifiers",
    "JwtVerifier": ".verifiers",
    "StaticTokenVerifier": ".verifiers",
    "TokenVerifier": ".verifiers",
    "ServerTls": ".tls",
    "client_ssl_context": ".tls",
    "server_tls": ".tls",
}


def __getattr__(name: str) -> Any:
    module = _LOCATIONS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
