"""`AccessToken`: what a verified bearer token grants, as a tool, route or A2A skill sees its caller. Its
own module, so that `ToolContext` (which reads the caller) loads no verifier."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

from .._frozen import frozen

if TYPE_CHECKING:
    from ..tools.injection import Injection

__all__ = ["AccessToken"]


class _CallerInjection:
    """The injection rule of `AccessToken` (tools/injection.py): the caller of the request served."""

    def injection(self, parameter: str, annotation: Any, cls: type) -> Injection:
        # imported when a signature is analysed: at import, tools/ (whose ToolContext reads the caller)
        # would be loading this module
        from ..tools.injection import Injection

        return Injection("caller")

    def constructor_refusal(self, cls: type) -> str:
        return (
            "AccessToken is the caller of one request: a tool, route or A2A skill receives it, a bean cannot"
        )


@frozen
class AccessToken:
    """What a verified token grants: who (`client_id`, `subject`, and `actor` when an agent acts for the
    subject), which `scopes`, for which `audience`, until when (`expires_at`, seconds since the epoch), and
    every claim (a read-only mapping).

    A tool, route or A2A skill receives the caller's as `ctx.access_token` or as a parameter typed
    `AccessToken | None` (None when no verifier is configured)."""

    # A parameter of this type is the caller of the request served (security/caller.py).
    __mesh_injection__: ClassVar[_CallerInjection] = _CallerInjection()

    client_id: str
    scopes: frozenset[str] = frozenset()
    subject: str | None = None
    expires_at: float | None = None
    claims: Mapping[str, Any] = field(default_factory=dict)
    audience: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "scopes", frozenset(self.scopes))
        object.__setattr__(self, "claims", MappingProxyType(dict(self.claims)))

    @property
    def issuer(self) -> str | None:
        value = self.claims.get("iss")
        return value if isinstance(value, str) else None

    @property
    def actor(self) -> str | None:
        """Who acts for the subject (RFC 8693 `act.sub`): the agent that exchanged the subject's token;
        None for a token used by its own subject."""
        act = self.claims.get("act")
        value = act.get("sub") if isinstance(act, Mapping) else None
        return value if isinstance(value, str) else None

    def has_scopes(self, *scopes: str) -> bool:
        """Whether the token grants every one of `scopes`."""
        return self.scopes.issuperset(scopes)
