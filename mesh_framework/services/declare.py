"""`@mesh_service` and `@selector`: declare a service interface, a class whose methods are bound to
capabilities of other agents. The decorators record metadata only; the class is checked when a tool or route
that takes it is planned (services/plan.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, overload

from ..tools.injection import INJECTION_ATTR
from .injection import SERVICE_INJECTION
from .metadata import SELECTOR_ATTR, SERVICE_ATTR, MatchMode, SelectorMark, ServiceMark

__all__ = [
    "SELECTOR_ATTR",
    "SERVICE_ATTR",
    "SelectorMark",
    "ServiceMark",
    "mesh_selector",
    "mesh_service",
    "selector",
]

C = TypeVar("C", bound=type)
F = TypeVar("F", bound=Callable[..., Any])


@overload
def mesh_service(cls: C, /) -> C: ...
@overload
def mesh_service(*, min_available: int = 0) -> Callable[[C], C]: ...
def mesh_service(cls: C | None = None, /, *, min_available: int = 0) -> C | Callable[[C], C]:
    """Declare a service interface: a class (or `typing.Protocol`) whose public methods are `async` stubs
    marked `@selector(capability, ...)`. A tool or route parameter of that type receives an implementation
    whose methods call the providers the registry resolved and return values validated against the
    methods' return annotations.

    Usage::

        @mesh_service(min_available=1)
        class Media(Protocol):
            @selector("media.caption", tags=["+fast"], required=True)
            async def caption(self, text: str) -> Caption: ...

    `min_available`: below this many resolved methods, every method call raises ServiceUnavailable.
    """
    if isinstance(min_available, bool) or not isinstance(min_available, int) or min_available < 0:
        raise ValueError(f"@mesh_service(min_available={min_available!r}): must be an integer >= 0")
    mark = ServiceMark(min_available)

    def decorate(target: C) -> C:
        if not isinstance(target, type):
            raise TypeError(f"@mesh_service decorates a class, not {target!r}")
        setattr(target, SERVICE_ATTR, mark)
        setattr(target, INJECTION_ATTR, SERVICE_INJECTION)  # injected into tools and routes by this rule
        return target

    return decorate(cls) if cls is not None else decorate


def selector(
    capability: str,
    *,
    tags: Sequence[str | Sequence[str]] = (),
    version: str | None = None,
    required: bool = False,
    match_mode: MatchMode | None = None,
    expected_type: Any = None,
) -> Callable[[F], F]:
    """Bind a method of a `@mesh_service` class to a capability, with the keys of a tool dependency:
    `tags` (`+preferred`, `-excluded`, nested lists for alternatives), a `version` constraint, and
    `required` (a tool taking the service refuses to run while no agent provides it).
    `match_mode` (`"subset"` or `"strict"`) asks the registry to match the provider's output schema
    against `expected_type`, by default the method's return annotation."""
    if not isinstance(capability, str):
        raise TypeError(f"@selector capability must be a string, not {capability!r}")
    if isinstance(tags, str):
        raise TypeError(f"@selector(tags={tags!r}): tags is a list, e.g. tags=[{tags!r}]")
    if match_mode not in (None, "subset", "strict"):
        raise ValueError(f"@selector(match_mode={match_mode!r}): must be 'subset' or 'strict'")
    mark = SelectorMark(
        capability=capability,
        tags=tuple(t if isinstance(t, str) else tuple(t) for t in tags),
        version=version,
        required=bool(required),
        match_mode=match_mode,
        expected_type=expected_type,
    )

    def decorate(function: F) -> F:
        setattr(function, SELECTOR_ATTR, mark)
        return function

    return decorate


mesh_selector = selector
