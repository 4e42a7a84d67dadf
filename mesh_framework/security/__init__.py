"""Security: TLS for servers and clients, bearer-token verification and MCP authorization for agents."""

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
