"""Registry authentication: one shared bearer token (`registry.token`), checked in front of the registry API.

Every route but `/health` (load balancers and `mesh status` probe it) needs `Authorization: Bearer TOKEN`;
a request without it, or with another token, gets 401 `{status: "error", message}` with
`WWW-Authenticate: Bearer realm="mcp-mesh-registry"`. The token is compared in constant time and never
logged. Without a token the registry listens on loopback only (`check_bind`).
"""

from __future__ import annotations

import hmac
import json
from typing import Any

from ..config.network import is_loopback

__all__ = ["OPEN_PATHS", "RegistryTokenAuth", "check_bind"]

OPEN_PATHS = frozenset({"/health"})
_CHALLENGE = b'Bearer realm="mcp-mesh-registry"'


def check_bind(host: str, token: str | None) -> None:
    """Raise ValueError when the registry would listen beyond loopback without a token."""
    if token or is_loopback(host):
        return
    raise ValueError(
        f"the embedded registry will not listen on {host} without a token: set registry.token "
        "(MESH_REGISTRY__TOKEN) so that agents must authenticate, or bind 127.0.0.1"
    )


class RegistryTokenAuth:
    """ASGI middleware: lets a request through when it carries the registry's bearer token."""

    def __init__(self, app: Any, token: str) -> None:
        if not token:
            raise ValueError("the registry token must not be empty")
        self.app = app
        self._expected = f"Bearer {token}".encode("latin-1")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        presented = b""
        for name, value in scope["headers"]:
            if name == b"authorization":
                presented = value
                break
        if hmac.compare_digest(presented, self._expected):
            await self.app(scope, receive, send)
            return
        reason = "a bearer token is required" if not presented else "the bearer token is not valid"
        body = json.dumps({"status": "error", "message": f"unauthorized: {reason} (registry.token)"}).encode()
        if scope.get("method") == "HEAD":
            body = b""
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", _CHALLENGE),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
