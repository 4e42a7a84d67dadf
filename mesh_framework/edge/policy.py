"""`EdgePolicy`: what the guarded edge enforces, from an agent's settings or for a loopback tool server."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any

from .._frozen import frozen
from ..config.network import is_loopback
from ..protocol.guard import LOOPBACK_HOSTS, LOOPBACK_ORIGINS, HostGuard

if TYPE_CHECKING:
    from ..config.settings import MeshSettings

__all__ = ["DEFAULT_MAX_BODY_BYTES", "EdgePolicy", "IdentityResolver", "host_guard"]

DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024

IdentityResolver = Callable[[str], Awaitable[Any]]
"""A bearer token → the verified caller (an `AccessToken`), or None when the token is not valid."""


def host_guard(
    host: str | None,
    *,
    enabled: bool | None = None,
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
) -> HostGuard | None:
    """The Host/Origin guard of a server bound to `host`: on by default for loopback binds (a page the
    developer opens must not reach it by DNS rebinding or a cross-site request), off beyond loopback unless
    `enabled` (an operator behind a proxy names the hosts)."""
    if enabled is None:
        enabled = is_loopback(host)
    if not enabled:
        return None
    return HostGuard(allowed_hosts or LOOPBACK_HOSTS, allowed_origins or LOOPBACK_ORIGINS)


@frozen
class EdgePolicy:
    """What the edge checks on each request.

    - `guard`: Host and Origin (421 / 403); None turns the checks off (a non-loopback bind).
    - `max_body_bytes`: a body larger than this is refused with 413 while it is read (chunked included);
      `max_form_bytes` applies instead to a form or multipart body on a route that accepts one.
    - `body_timeout`: seconds a client may take to send a body (slower: 408).
    - `max_concurrency`: requests served at once (more: 503); idle connections do not count.
    - `identity`: resolves a bearer token once per request; the caller is left in
      `scope["state"]["access_token"]` for the surfaces behind the edge (None when no verifier is set).
    - `surface`: how refusals name what was asked ("agent", "registry", "console"), and their shape
      (`{"detail"}` on an agent, `{"status", "message"}` elsewhere; JSON-RPC errors below `jsonrpc_paths`).
    """

    guard: HostGuard | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_form_bytes: int | None = None
    body_timeout: float = 30.0
    max_concurrency: int | None = None
    identity: IdentityResolver | None = field(default=None, compare=False)
    surface: str = "agent"
    origin_regex: str | None = None  # origins allowed beside the guard's (`web.cors.allow_origin_regex`)
    jsonrpc_paths: tuple[str, ...] = ()  # paths (and below) whose callers read refusals as JSON-RPC errors

    @classmethod
    def loopback(
        cls, host: str | None, *, surface: str, max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    ) -> EdgePolicy:
        """The policy of a server the framework runs for tools and people on this machine (the embedded
        registry, `mesh console`): the Host/Origin guard when bound to loopback."""
        return cls(guard=host_guard(host), max_body_bytes=max_body_bytes, surface=surface)

    @classmethod
    def of_agent(cls, settings: MeshSettings, identity: IdentityResolver | None = None) -> EdgePolicy:
        """An agent's policy: `server.*` (host checks, limits, concurrency); the origins `web.cors` allows
        are allowed too, and forms may be as large as `media.max_upload_bytes`."""
        server = settings.server
        origins = list(server.allowed_origins)
        cors = settings.web.cors
        if cors.enabled and cors.allow_origins:  # pages the routes' CORS lets in ('*': any page)
            origins = [*(origins or LOOPBACK_ORIGINS), *cors.allow_origins]
        guard = host_guard(
            server.host,
            enabled=server.host_check,
            allowed_hosts=server.allowed_hosts,
            allowed_origins=origins,
        )
        return cls(
            guard=guard,
            max_body_bytes=server.max_body_bytes,
            max_form_bytes=max(server.max_body_bytes, settings.media.max_upload_bytes + 64 * 1024),
            body_timeout=server.body_timeout,
            max_concurrency=server.max_concurrency,
            identity=identity,
            surface="agent",
            origin_regex=cors.allow_origin_regex,
            jsonrpc_paths=(settings.a2a.path,),
        )
