"""Auto-configurations: `@configuration` classes an installed package contributes through the entry point
group `mesh_framework.auto_configuration` (Spring Boot's starters). They are applied after the application's
own beans, so an application's bean wins over one marked `@conditional_on_missing_bean`;
`auto_configuration.exclude` names the ones to leave out.
"""

from __future__ import annotations

import importlib.metadata
import logging
import re
from collections.abc import Sequence

from .._frozen import frozen
from ..config.fields import did_you_mean
from ..decorators import own_metadata
from .configuration import CONFIGURATION_ATTR, ConfigurationSpec

__all__ = ["ENTRY_POINT_GROUP", "AutoConfiguration", "discover_auto_configurations"]

ENTRY_POINT_GROUP = "mesh_framework.auto_configuration"

logger = logging.getLogger("mesh_framework")


@frozen
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
    points = sorted(_entry_points(), key=lambda p: p.name)
    names = {point.name for point in points}
    for unknown in sorted(set(exclude) - names):
        logger.warning(
            "auto_configuration.exclude: no auto-configuration is named '%s'%s",
            unknown,
            did_you_mean(unknown, sorted(names)),
        )
    packages: dict[int, str] = {}  # a distribution's name, read (its METADATA parsed) once
    for point in points:
        if point.name in exclude:
            continue
        dist = point.dist
        if dist is None:
            package = point.module
        elif (package := packages.get(id(dist), "")) == "":
            package = packages[id(dist)] = dist.name
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


def _entry_points() -> list[importlib.metadata.EntryPoint]:
    """The group's entry points, as `importlib.metadata.entry_points(group=...)` finds them (the first
    distribution of a name on the path wins), parsing only the `entry_points.txt` files that mention the
    group: the others (every installed package's console scripts and plugins) are read, not parsed."""
    found: list[importlib.metadata.EntryPoint] = []
    seen: set[str] = set()
    for dist in importlib.metadata.distributions():
        # The key entry_points() uniques by: a private attribute of the stdlib's path distributions (what
        # it reads without parsing METADATA), else the same normalization of the public name.
        name = getattr(dist, "_normalized_name", None) or re.sub(r"[-_.]+", "_", dist.name).lower()
        if name in seen:
            continue
        seen.add(name)
        text = dist.read_text("entry_points.txt")
        if text and ENTRY_POINT_GROUP in text:
            found.extend(dist.entry_points.select(group=ENTRY_POINT_GROUP))
    return found
