"""Auto-configurations: `@configuration` classes an installed package contributes through the entry point
group `mesh_framework.auto_configuration` (Spring Boot's starters). They are applied after the application's
own beans, so an application's bean wins over one marked `@conditional_on_missing_bean`;
`auto_configuration.exclude` names the ones to leave out.
"""

from __future__ import annotations

import importlib.metadata
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from ..config.fields import did_you_mean
from ..decorators import own_metadata
from .configuration import CONFIGURATION_ATTR, ConfigurationSpec

__all__ = ["ENTRY_POINT_GROUP", "AutoConfiguration", "discover_auto_configurations"]

ENTRY_POINT_GROUP = "mesh_framework.auto_configuration"

logger = logging.getLogger("mesh_framework")


@dataclass(frozen=True, slots=True)
class AutoConfiguration:
    """One entry point of the group: its name, the configuration class and the distribution providing it."""

    name: str
    cls: type
    package: str


def discover_auto_configurations(exclude: Sequence[str]) -> tuple[list[AutoConfiguration], list[str]]:
    """The installed auto-configurations but the excluded, by entry point name, and the problems found (an
    entry point that cannot be loaded, or names no `@configuration` class)."""
    found: list[AutoConfiguration] = []
    problems: list[str] = []
    points = sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name)
    names = {point.name for point in points}
    for unknown in sorted(set(exclude) - names):
        logger.warning(
            "auto_configuration.exclude: no auto-configuration is named '%s'%s",
            unknown,
            did_you_mean(unknown, sorted(names)),
        )
    for point in points:
        if point.name in exclude:
            continue
        package = point.dist.name if point.dist is not None else point.module
        where = f"auto-configuration '{point.name}' ({point.value}, package {package})"
        try:
            cls = point.load()
        except Exception as exc:
            problems.append(
                f"{where}: cannot be loaded ({type(exc).__name__}: {exc}); fix or uninstall the package, "
                f"or add '{point.name}' to auto_configuration.exclude"
            )
            continue
        if not isinstance(own_metadata(cls, CONFIGURATION_ATTR), ConfigurationSpec):
            problems.append(f"{where}: {cls!r} is not a @configuration class")
            continue
        found.append(AutoConfiguration(point.name, cls, package))
    return found, problems
