"""Security: TLS for servers and clients, bearer-token verification and MCP authorization for agents.

The names below are loaded on first use (PEP 562): an agent that only needs TLS or credentials does not
import the token verifiers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

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


__getattr__, __dir__ = lazy_exports(__name__, _LOCATIONS, globals())
