"""The embedded registry as an auto-configuration: an agent that joins a registry (`registry.enabled`) and
has no registry URL gets the registry it joins, or runs, on 127.0.0.1 at `registry.embedded_port`
(registry/beans.py, extension.EmbeddedRegistry); the registry's server modules load only when the agent
starts one."""

from __future__ import annotations

from ..di.conditions import ConditionContext, conditional
from ..di.configuration import configuration, imports

__all__ = ["RegistryAutoConfiguration"]


def _embedded(context: ConditionContext) -> tuple[bool, str]:
    registry = context.settings.registry
    if not registry.enabled:
        return False, "registry.enabled is off"
    if registry.endpoints():
        return False, "registry.url is set: the agent joins that registry"
    return True, "registry.enabled, and no registry.url"


@configuration
@conditional(_embedded, "registry.enabled and no registry.url")
@imports("mesh_framework.registry.beans:RegistryBeans")
class RegistryAutoConfiguration:
    """Gates the embedded registry (registry/beans.py) on an agent joining one without a registry URL."""
