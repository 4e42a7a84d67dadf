"""`McpMeshToolProxyFactory`: the one place that turns a resolved dependency into an `McpMeshTool`."""

from __future__ import annotations

from ..config.settings import MeshSettings
from ..injectables import McpMeshTool
from ..specs import DependencySpec

__all__ = ["McpMeshToolProxyFactory"]


class McpMeshToolProxyFactory:
    """Hands out the proxy a dependency slot holds.

    Until the mesh runtime reports a provider for a dependency, its slot is unresolved (`None`): a call
    that needs it answers at once with an error naming the capability, and an optional one receives None.
    """

    def __init__(self, settings: MeshSettings) -> None:
        self.settings = settings

    def initial_proxy(self, dependency: DependencySpec) -> McpMeshTool | None:
        """The proxy a slot starts with, before any registry answer: unresolved."""
        return None
