"""The user's sign-ins to catalog servers behind OAuth (`mesh catalog login`): tokens kept per user, never
in the project, under `$XDG_STATE_HOME/mesh/tokens/` (default `~/.local/state/mesh/tokens/`).

One JSON file per server URL and issuer, `<digest of the URL>-<digest of the issuer>.json`, readable by the
user only (0600, in a 0700 folder), written whole (a temporary file renamed over it, so a reader never
sees half of one). Agents and commands run by the same user find a server's sign-in by its URL.

Renewing a token is done under an exclusive lock of the server's `.lock` file, so that two processes of
the same user do not both spend a refresh token the authorization server may rotate (the second one
finds the first one's tokens on reading the file again).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import asdict, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .._frozen import frozen

__all__ = ["UserLogin", "UserTokenStore", "canonical_url", "token_directory"]

logger = logging.getLogger("mesh_framework.catalog")

# Renewed this long before it expires: a fifth of its lifetime, at most 30 s (as the agent's own tokens).
_MAX_EARLY = 30.0


def token_directory() -> Path:
    """Where sign-ins are kept: `$XDG_STATE_HOME/mesh/tokens`, else `~/.local/state/mesh/tokens`."""
    state = os.environ.get("XDG_STATE_HOME", "").strip()
    base = Path(state) if state and Path(state).is_absolute() else Path.home() / ".local" / "state"
    return base / "mesh" / "tokens"


def canonical_url(url: str) -> str:
    """A server URL as its sign-in is filed under: scheme and host lower-case, no fragment."""
    parts = urlsplit(url.strip())
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path, parts.query, ""))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


@frozen
class UserLogin:
    """One sign-in: the server and authorization server it is for, and its tokens (never shown)."""

    server_url: str
    issuer: str
    resource: str
    client_id: str
    token_endpoint: str
    access_token: str = field(repr=False)
    refresh_token: str | None = field(default=None, repr=False)
    expires_at: float | None = None  # seconds since the epoch; None: the server did not say
    lifetime: float | None = None  # expires_in as issued, to renew at a fifth of it
    scope: str | None = None

    def due(self, now: float | None = None) -> bool:
        """Whether to renew it before use: it expires within a fifth of its lifetime (at most 30 s)."""
        if self.expires_at is None:
            return False
        early = min(_MAX_EARLY, (self.lifetime or _MAX_EARLY * 5) / 5)
        return (time.time() if now is None else now) >= self.expires_at - early

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> UserLogin:
        """A sign-in as `to_json` wrote it (TypeError: a field missing or unknown)."""
        return cls(**data)


class UserTokenStore:
    """The sign-ins of this user, in `directory` (default `token_directory()`)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or token_directory()

    def __repr__(self) -> str:
        return f"UserTokenStore({str(self.directory)!r})"

    def path_for(self, server_url: str, issuer: str) -> Path:
        return self.directory / f"{_digest(canonical_url(server_url))}-{_digest(issuer)}.json"

    def save(self, login: UserLogin) -> Path:
        """Keep `login` (replacing the one of the same server and issuer); its file's path."""
        self._ensure_directory()
        path = self.path_for(login.server_url, login.issuer)
        descriptor, temporary = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=self.directory)  # 0600
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as out:
                json.dump(login.to_json(), out, indent=2)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        return path

    def find(self, server_url: str) -> UserLogin | None:
        """The sign-in to `server_url` (the newest, should several authorization servers have issued
        one); None when there is none or it cannot be read (said once in the log)."""
        found = sorted(self._files(server_url), key=lambda p: p.stat().st_mtime, reverse=True)
        for path in found:
            try:
                login = UserLogin.from_json(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError, TypeError) as exc:
                logger.warning("the sign-in file %s cannot be read (%s); sign in again", path, exc)
                continue
            if canonical_url(login.server_url) == canonical_url(server_url) and login.access_token:
                return login
        return None

    def remove(self, server_url: str) -> list[Path]:
        """Forget every sign-in to `server_url`; the files removed."""
        removed = []
        for path in self._files(server_url):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed.append(path)
        with contextlib.suppress(FileNotFoundError):
            self._lock_path(server_url).unlink()
        return removed

    @contextlib.asynccontextmanager
    async def locked(self, server_url: str) -> AsyncIterator[None]:
        """Hold the server's lock (other processes of the user wait for it; the event loop does not)."""
        import asyncio

        try:
            import fcntl
        except ImportError:  # Windows: no advisory locks here; a concurrent renewal may have to sign in again
            yield
            return
        self._ensure_directory()
        descriptor = os.open(self._lock_path(server_url), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            await asyncio.to_thread(fcntl.flock, descriptor, fcntl.LOCK_EX)
            yield
        finally:
            os.close(descriptor)  # releases the lock

    def _files(self, server_url: str) -> list[Path]:
        if not self.directory.is_dir():
            return []
        return list(self.directory.glob(f"{_digest(canonical_url(server_url))}-*.json"))

    def _lock_path(self, server_url: str) -> Path:
        return self.directory / f"{_digest(canonical_url(server_url))}.lock"

    def _ensure_directory(self) -> None:
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        if self.directory.stat().st_mode & 0o077:  # made by something else, or an older umask
            self.directory.chmod(0o700)
