"""The console's agent side as an auto-configuration: an agent that joins a registry (`registry.enabled`)
counts its traffic and pushes it, with its spans, to the registry's console once joined (console/beans.py);
any other loads none of its modules."""

from __future__ import annotations

from ..di.conditions import ConditionContext, conditional
from ..di.configuration import configuration, imports

__all__ = ["ConsoleAutoConfiguration"]


def _joins_a_registry(context: ConditionContext) -> tuple[bool, str]:
    enabled = bool(context.settings.registry.enabled)
    return enabled, "registry.enabled" if enabled else "registry.enabled is off: no console to push to"


@configuration
@conditional(_joins_a_registry, "registry.enabled")
@imports("mesh_framework.console_feed.beans:ConsoleBeans")
class ConsoleAutoConfiguration:
    """Gates the console's beans (console/beans.py) on the agent joining a registry."""
