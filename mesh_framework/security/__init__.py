"""Security: TLS for servers and clients, bearer-token verification and MCP authorization for agents."""

from .tls import ServerTls, client_ssl_context, server_tls

__all__ = ["ServerTls", "client_ssl_context", "server_tls"]
