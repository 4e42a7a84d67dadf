"""Security: TLS for servers and clients, bearer-token verification and MCP authorization for agents, the
caller's verified token while a request is served, and the identity sent on calls (static tokens, OAuth
client credentials).

The names below are loaded on first use (PEP 562): an agent that only needs TLS or credentials does not
import the token verifiers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .access_token import AccessToken
    from .caller import current_access_token
    from .client_credentials import TokenEndpointError
    from .outbound import OutboundCredentials
    from .tls import ServerTls, client_ssl_context, server_tls
    from .verifiers import AnyOfVerifier, JwtVerifier, StaticTokenVerifier, TokenVerifier

__all__ = [
    "AccessToken",
    "AnyOfVerifier",
    "JwtVerifier",
    "OutboundCredentials",
    "ServerTls",
    "StaticTokenVerifier",
    "TokenEndpointError",
    "TokenVerifier",
    "client_ssl_context",
    "current_access_token",
    "server_tls",
]

_LOCATIONS = {
    "AccessToken": ".access_token",
    "AnyOfVerifier": ".verifiers",
    "JwtVerifier": ".verifiers",
    "StaticTokenVerifier": ".verifiers",
    "TokenVerifier": ".verifiers",
    "OutboundCredentials": ".outbound",
    "TokenEndpointError": ".client_credentials",
    "current_access_token": ".caller",
    "ServerTls": ".tls",
    "client_ssl_context": ".tls",
    "server_tls": ".tls",
}


__getattr__, __dir__ = lazy_exports(__name__, _LOCATIONS, globals())
