"""Turns topology events into proxies in wrapper slots; the MCP tool list itself never changes."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..events import ApplicationEventPublisher
from ..tools.wrapper_registry import ROUTE_KEY_PREFIX, MeshToolWrapperRegistry
from .proxy_factory import McpMeshToolProxyFactory

if TYPE_CHECKING:  # the topology (and the proxies it names): loaded with the first dispatcher made
    from .topology import Topology, TopologyEvent

__all__ = ["ROUTE_KEY_PREFIX", "TopologyDispatcher"]

logger = logging.getLogger("mesh_framework.mesh")


class TopologyDispatcher:
    """Holds the current topology; `apply(new)` diffs, swaps the changed slots and drops unused proxies."""

    def __init__(
        self,
        tools: MeshToolWrapperRegistry,
        factory: McpMeshToolProxyFactory,
        publisher: ApplicationEventPublisher | None = None,
        *,
        routes: MeshToolWrapperRegistry | None = None,
    ) -> None:
        self.tools = tools
        self.routes = routes  # web routes' wrappers, keyed `route:module.qualname`
        self.factory = factory
        self.publisher = publisher
        from .topology import Topology

        self.topology = Topology()

    def apply(self, topology: Topology) -> list[TopologyEvent]:
        from .topology import diff_topology

        events = diff_topology(self.topology, topology)
        for event in events:
            self.dispatch(event)
            if self.publisher is not None:
                self.publisher.publish_soon(event)  # listeners (tool callback providers, users) hear it
        self.topology = topology
        in_use = [
            (r.provider.endpoint, r.provider.function_name)
            for r in topology.dependencies.values()
            if r is not None
        ]
        self.factory.invalidate(in_use)
        return events

    def _slots_of(self, key: str) -> MeshToolWrapperRegistry:
        if self.routes is not None and key.startswith(ROUTE_KEY_PREFIX):
            return self.routes
        return self.tools

    def dispatch(self, event: TopologyEvent) -> None:
        if event.kind in ("dependency_available", "dependency_changed") and event.resolution is not None:
            resolution = event.resolution
            proxy = self.factory.proxy_for(resolution.capability, resolution.provider, resolution.alternates)
            self._slots_of(event.key).update_dependency(event.key, proxy)
            logger.info(
                "%s: %s -> %s at %s",
                event.key,
                resolution.capability,
                resolution.provider.agent_id,
                resolution.provider.endpoint,
            )
        elif event.kind == "dependency_unavailable":
            self._slots_of(event.key).update_dependency(event.key, None)
            logger.info("%s: no provider any more", event.key)
        else:
            logger.debug("%s for %s", event.kind, event.key)
