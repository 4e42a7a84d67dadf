"""`@status_section`: a function whose answer is one section of the agent's `GET /status`."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from .._frozen import frozen

__all__ = ["STATUS_ATTR", "StatusSectionSpec", "status_section"]

STATUS_ATTR = "__mesh_status_section__"
_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")

F = TypeVar("F", bound=Callable[..., Any])


@frozen
class StatusSectionSpec:
    name: str
    refresh: float
    function: Callable[..., Any]


def status_section(name: str, *, refresh: float = 30.0) -> Callable[[F], F]:
    """Serve what the function returns (JSON-able; sync or async; a module function or a component
    method) as the section `name` of `GET /status`, refreshed in the background every `refresh` seconds.

    Usage::

        @status_section("cluster", refresh=30)
        def cluster() -> dict:
            return {"nodes": 3, "healthy": 3}
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(
            f"Status section name {name!r} is invalid: use 1-64 letters, digits, '_', '-' or '.'"
        )
    if not refresh > 0:
        raise ValueError(f"Status section refresh must be positive seconds, got {refresh!r}")

    def mark(function: F) -> F:
        if not callable(function):
            raise TypeError(f"@status_section applies to functions and methods, not {function!r}")
        setattr(function, STATUS_ATTR, StatusSectionSpec(name, float(refresh), function))
        return function

    return mark
