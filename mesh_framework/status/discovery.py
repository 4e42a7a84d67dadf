"""Status sections found in the scanned modules (functions) and components (methods)."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .._frozen import frozen
from ..di.scan import class_members
from .board import StatusBoard, StatusSection

if TYPE_CHECKING:
    from .status_marks import StatusSectionSpec

__all__ = ["StatusPlan", "build_status_board", "plan_status_sections"]


@frozen
class StatusPlan:
    spec: StatusSectionSpec
    where: str
    owner: str | None = None  # provider name of the component owning the method
    attribute: str = ""


def _takes_nothing(function: Callable[..., Any], is_method: bool) -> bool:
    params = list(inspect.signature(function).parameters.values())[1 if is_method else 0 :]
    return all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)


def plan_status_sections(
    modules: Sequence[str], components: dict[type, str]
) -> tuple[list[StatusPlan], list[str]]:
    """Every `@status_section` of the scanned modules and components, and every problem found."""
    plans: list[StatusPlan] = []
    problems: list[str] = []
    marks = sys.modules.get("mesh_framework.status.status_marks")
    if marks is None:  # loaded by `@status_section`: nothing is marked, nothing to look for
        return plans, problems
    attr, spec_type = marks.STATUS_ATTR, marks.StatusSectionSpec
    for name in modules:
        module = sys.modules.get(name)
        for value in list(vars(module).values()) if module else []:
            spec = getattr(value, attr, None)
            defined_here = getattr(value, "__module__", None) == name
            if isinstance(spec, spec_type) and defined_here and not inspect.isclass(value):
                plans.append(StatusPlan(spec, f"{name}.{value.__qualname__}"))
    for cls, provider in components.items():
        for attribute, member in class_members(cls):
            function = member.__func__ if isinstance(member, staticmethod | classmethod) else member
            spec = getattr(function, attr, None)
            if isinstance(spec, spec_type):
                plans.append(
                    StatusPlan(spec, f"{cls.__module__}.{cls.__qualname__}.{attribute}", provider, attribute)
                )
    seen: dict[str, str] = {}
    for plan in plans:
        if not _takes_nothing(plan.spec.function, plan.owner is not None):
            problems.append(
                f"{plan.where}: @status_section('{plan.spec.name}') must take no arguments (it is called "
                "with none on each refresh)"
            )
        if plan.spec.name in seen:
            problems.append(
                f"{plan.where}: status section '{plan.spec.name}' is already served by "
                f"{seen[plan.spec.name]}; give one of them another name"
            )
        seen.setdefault(plan.spec.name, plan.where)
    return plans, problems


def build_status_board(
    plans: list[StatusPlan], provide: Callable[[str], Any], agent: str = ""
) -> StatusBoard:
    sections = []
    for plan in plans:
        function = getattr(provide(plan.owner), plan.attribute) if plan.owner else plan.spec.function
        sections.append(StatusSection(plan.spec.name, function, plan.spec.refresh))
    return StatusBoard(sections, agent)
