"""Host and Origin checks against DNS rebinding, on by default when the server binds a loopback address."""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase

__all__ = ["LOOPBACK_HOSTS", "LOOPBACK_ORIGINS", "HostGuard"]

LOOPBACK_HOSTS = ("127.0.0.1", "127.0.0.1:*", "localhost", "localhost:*", "[::1]", "[::1]:*")
LOOPBACK_ORIGINS = (
    "http://127.0.0.1:*",
    "http://localhost:*",
    "http://[::1]:*",
    "http://127.0.0.1",
    "http://localhost",
    "http://[::1]",
)


class HostGuard:
    """Refuses requests whose Host (or Origin, when sent) matches none of the allowed patterns.

    Patterns are shell-style (`fnmatch`): `127.0.0.1:*` allows any port of that host.
    """

    def __init__(self, allowed_hosts: Sequence[str], allowed_origins: Sequence[str]) -> None:
        self.allowed_hosts = tuple(h.lower() for h in allowed_hosts)
        self.allowed_origins = tuple(o.lower() for o in allowed_origins)
        self._accepted_hosts: set[bytes] = set()

    def check(self, host: bytes, origin: bytes) -> tuple[int, str] | None:
        """None when the request may pass, else the HTTP status and the reason."""
        if host not in self._accepted_hosts:
            text = host.decode("latin-1").lower()
            if not any(fnmatchcase(text, pattern) for pattern in self.allowed_hosts):
                return 421, f"Invalid Host header '{text}': not in server.allowed_hosts"
            if len(self._accepted_hosts) < 64:
                self._accepted_hosts.add(host)
        if origin:
            text = origin.decode("latin-1").lower()
            if not any(fnmatchcase(text, pattern) for pattern in self.allowed_origins):
                return 403, f"Invalid Origin header '{text}': not in server.allowed_origins"
        return None
