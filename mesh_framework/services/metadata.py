"""What `@mesh_service` and `@selector` record on a class and its methods (read by services/plan.py)."""

from __future__ import annotations

from typing import Any, Literal

from .._frozen import frozen

__all__ = ["SELECTOR_ATTR", "SERVICE_ATTR", "MatchMode", "SelectorMark", "ServiceMark"]

SERVICE_ATTR = "__mesh_service__"
SELECTOR_ATTR = "__mesh_selector__"

MatchMode = Literal["subset", "strict"]


@frozen
class ServiceMark:
    min_available: int = 0


@frozen
class SelectorMark:
    capability: str
    tags: tuple[str | tuple[str, ...], ...] = ()
    version: str | None = None
    required: bool = False
    match_mode: MatchMode | None = None
    expected_type: Any = None
