"""`@configuration` classes and their `@bean` methods: beans of any type (a third-party client, a pool), made
by code. The decorators record metadata, nothing else; `di/definitions.py` turns them into bean definitions.

A bean method's parameters are injected by type as a constructor's are; it may be `async def`, a generator or
an async generator (`yield` the bean, clean up after the `yield`: that code runs when the bean is closed).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, TypeVar, overload

from .._frozen import frozen

__all__ = [
    "BEAN_ATTR",
    "CONFIGURATION_ATTR",
    "IMPORTS_ATTR",
    "SCOPES",
    "BeanMethodSpec",
    "ConfigurationSpec",
    "bean",
    "check_scope",
    "configuration",
    "imported_configurations",
    "imports",
]

CONFIGURATION_ATTR = "__mesh_configuration__"
BEAN_ATTR = "__mesh_bean__"
IMPORTS_ATTR = "__mesh_imports__"
# singleton: one per agent; prototype: a new instance per injection; call: one per tool call, route request
# or job, closed when it ends.
SCOPES = ("singleton", "prototype", "call")

C = TypeVar("C", bound=type)
F = TypeVar("F", bound=Callable[..., Any])


@frozen
class ConfigurationSpec:
    """What `@configuration` recorded about a class."""

    cls: type


@frozen
class BeanMethodSpec:
    """What `@bean` recorded about a method of a `@configuration` class."""

    function: Callable[..., Any]
    name: str | None = None
    order: int | None = None
    scope: str = "singleton"
    primary: bool = False
    qualifier: str | None = None
    lazy: bool = False


def check_scope(scope: str, where: str) -> None:
    if scope not in SCOPES:
        raise ValueError(f"{where}: scope must be one of {', '.join(SCOPES)}, not {scope!r}")


def configuration(cls: C, /) -> C:
    """Mark a class whose `@bean` methods make beans. The class is built once (its constructor injected by
    type, as a component's), before its first bean."""
    if not isinstance(cls, type):
        raise TypeError(f"@configuration applies to classes, not {cls!r}")
    setattr(cls, CONFIGURATION_ATTR, ConfigurationSpec(cls))
    return cls


@overload
def bean(function: F, /) -> F: ...
@overload
def bean(
    *,
    name: str | None = None,
    order: int | None = None,
    scope: str = "singleton",
    primary: bool = False,
    qualifier: str | None = None,
    lazy: bool = False,
) -> Callable[[F], F]: ...
def bean(
    function: F | None = None,
    /,
    *,
    name: str | None = None,
    order: int | None = None,
    scope: str = "singleton",
    primary: bool = False,
    qualifier: str | None = None,
    lazy: bool = False,
) -> F | Callable[[F], F]:
    """Mark a method of a `@configuration` class as making a bean; the bean's type is the method's return
    annotation (`T`, or `Iterator[T]`/`AsyncIterator[T]` for a generator).

    `name` defaults to the method's name; `order` places the bean in `list[T]` collections (lower first);
    `scope` is `"singleton"` (default), `"prototype"` or `"call"`; `primary`/`qualifier` as on `@component`;
    `lazy` (Spring's `@Lazy`): a singleton made on first use rather than before the agent serves (sync only).
    """
    check_scope(scope, "@bean")
    if order is not None and (not isinstance(order, int) or isinstance(order, bool)):
        raise ValueError(f"@bean: order must be an integer, not {order!r}")

    def mark(target: F) -> F:
        if not callable(target) or isinstance(target, type):
            raise TypeError(f"@bean applies to methods of a @configuration class, not {target!r}")
        spec = BeanMethodSpec(target, name, order, scope, primary, qualifier, lazy)
        setattr(target, BEAN_ATTR, spec)
        return target

    return mark(function) if function is not None else mark


def imports(*targets: type | str) -> Callable[[C], C]:
    """Add the `@configuration` classes named to the one decorated, as Spring's `@Import`: a class, or
    `"module:Class"` so that the module is imported only when the decorated class's conditions match. This is
    how a feature's auto-configuration stays light: its conditions are read first, its beans' module (and
    what that module imports) is loaded only for an app that uses it. The imported classes' beans take the
    decorated class's conditions too."""
    for target in targets:
        if not isinstance(target, type) and not (isinstance(target, str) and ":" in target):
            raise ValueError(f"@imports takes classes or 'module:Class' strings, not {target!r}")

    def mark(cls: C) -> C:
        if not isinstance(cls, type):
            raise TypeError(f"@imports applies to @configuration classes, not {cls!r}")
        setattr(cls, IMPORTS_ATTR, (*cls.__dict__.get(IMPORTS_ATTR, ()), *targets))
        return cls

    return mark


def imported_configurations(cls: type) -> list[type]:
    """The configuration classes `cls` imports (`@imports`), loaded now; ImportError or ValueError when one
    cannot be loaded."""
    found: list[type] = []
    for named in cls.__dict__.get(IMPORTS_ATTR, ()):
        target = named
        if isinstance(named, str):
            module_name, _, attribute = named.partition(":")
            target = getattr(importlib.import_module(module_name), attribute, None)
            if target is None:
                raise ValueError(f"module '{module_name}' has no '{attribute}'")
        if not isinstance(target.__dict__.get(CONFIGURATION_ATTR), ConfigurationSpec):
            raise ValueError(f"{target!r} is not a @configuration class")
        found.append(target)
    return found
