"""Health indicators: `@health_indicator` functions and methods, and components that are a `HealthIndicator`.

    @health_indicator
    async def database() -> Health:             # module-level function in a scanned package
        return Health.up(pool=3)

    @component
    class Vendor:
        @health_indicator("vendor-api")         # a component's method
        def reachable(self) -> bool: ...

    @component
    class DiskSpaceHealthIndicator:             # a component with health(): indicator "diskSpace"
        def health(self) -> Health: ...

`@mesh_agent(health_check=fn)` (MCP Mesh's parameter) adds `fn` as the indicator `health_check`.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeVar, overload, runtime_checkable

from .._frozen import frozen
from ..di.scan import class_members
from ..errors import WiringError

__all__ = ["HealthIndicator", "NamedIndicator", "collect_indicators", "health_indicator"]

INDICATOR_ATTR = "__mesh_health_indicator__"

F = TypeVar("F", bound=Callable[..., Any])


@runtime_checkable
class HealthIndicator(Protocol):
    """A component whose `health()` (sync or async, no arguments) says how it is; named after its class,
    without a `HealthIndicator` suffix, first letter lowered (Spring's rule)."""

    def health(self) -> Any: ...


@frozen
class NamedIndicator:
    """One check to run: its name on `/health` and a callable taking no arguments (sync or async)."""

    name: str
    check: Callable[[], Any]


@overload
def health_indicator(function: F, /) -> F: ...
@overload
def health_indicator(name: str | None = None) -> Callable[[F], F]: ...
def health_indicator(name: Any = None) -> Any:
    """Mark a function or a component method as a health indicator (named after the function unless
    given a name: `@health_indicator("pool")` or `@health_indicator(name="pool")`)."""
    if callable(name):
        setattr(name, INDICATOR_ATTR, name.__name__)
        return name
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise TypeError(f"@health_indicator takes a non-empty name, not {name!r}")

    def mark(function: F) -> F:
        setattr(function, INDICATOR_ATTR, name or function.__name__)
        return function

    return mark


def indicator_name(cls: type) -> str:
    name = cls.__name__.removesuffix("HealthIndicator") or cls.__name__
    return name[0].lower() + name[1:]


def _takes_no_arguments(method: Any) -> bool:
    """A `health` that needs arguments (`health(patient)`) is some other method, not an indicator."""
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters)


def _checked(check: Any, name: str) -> Any:
    if not _takes_no_arguments(check):
        where = f"{check.__module__}.{check.__qualname__}"
        raise WiringError(
            [f"{where}: @health_indicator '{name}' needs arguments; an indicator is called with none"]
        )
    return check


def collect_indicators(
    modules: Iterable[str], components: Iterable[object], agent_check: Callable[[], Any] | None = None
) -> list[NamedIndicator]:
    """Every indicator of an application: `@mesh_agent(health_check=...)`, `@health_indicator` functions
    of the scanned `modules`, and the indicator methods (or `health()`) of the `components`.

    Raises WiringError for a `@health_indicator` that needs arguments."""
    found: list[NamedIndicator] = []
    if agent_check is not None:
        found.append(NamedIndicator("health_check", agent_check))
    for module_name in modules:
        module = sys.modules.get(module_name)
        for value in vars(module).values() if module is not None else ():
            name = getattr(value, INDICATOR_ATTR, None) if inspect.isfunction(value) else None
            if isinstance(name, str) and value.__module__ == module_name:
                found.append(NamedIndicator(name, _checked(value, name)))
    for component in components:
        for attribute, member in class_members(type(component)):
            function = member.__func__ if isinstance(member, staticmethod) else member
            name = getattr(function, INDICATOR_ATTR, None) if inspect.isfunction(function) else None
            if isinstance(name, str):
                found.append(NamedIndicator(name, _checked(getattr(component, attribute), name)))
        # `health` looked up first: a Protocol's isinstance costs far more, and most components have none
        has_health = hasattr(component, "health")
        if has_health and isinstance(component, HealthIndicator) and _takes_no_arguments(component.health):
            found.append(NamedIndicator(indicator_name(type(component)), component.health))
    return found
