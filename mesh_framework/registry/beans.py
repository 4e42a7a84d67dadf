"""The registry feature's bean (gated by registry/auto_configuration.py): the embedded registry an agent
joins or runs, unless the app defines an `EmbeddedRegistry` of its own."""

from __future__ import annotations

from ..config.settings import MeshSettings
from ..di.conditions import conditional_on_missing_bean
from ..di.configuration import bean, configuration
from ..extension import EmbeddedRegistry
from .in_process import InProcessRegistry

__all__ = ["RegistryBeans"]


@configuration
class RegistryBeans:
    @bean
    @conditional_on_missing_bean(EmbeddedRegistry)
    def embedded_registry(self, settings: MeshSettings) -> EmbeddedRegistry:
        return InProcessRegistry(settings.registry)
