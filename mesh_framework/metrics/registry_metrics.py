"""The embedded registry's `/metrics`: agents by status and dependency slots by state, read from its store
at scrape time, plus the heartbeats it answered."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from prometheus_client import CollectorRegistry
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .route import metrics_response

__all__ = ["RegistryCollector", "registry_metrics_route"]


class RegistryCollector(Collector):
    """Gauges over a `RegistryStore`: `mesh_registry_agents{status}`, `mesh_registry_dependencies{state}`
    (slots of healthy agents: resolved or unresolved), `mesh_registry_capability_providers{capability}`."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def collect(self) -> Iterator[Metric]:
        states = self.store.agents()
        agents = GaugeMetricFamily(
            "mesh_registry_agents", "Agents the registry knows, by status", labels=["status"]
        )
        healthy = [s for s in states if s.healthy]
        agents.add_metric(["healthy"], float(len(healthy)))
        agents.add_metric(["unhealthy"], float(len(states) - len(healthy)))
        yield agents
        slots = {"resolved": 0, "unresolved": 0}
        providers: dict[str, int] = {}
        for state in healthy:
            answer = state.answer or state.sent or {}
            for resolved in (answer.get("dependencies_resolved") or {}).values():
                for slot in resolved:
                    slots["resolved" if slot.get("status") == "available" else "unresolved"] += 1
            for tool in state.registration.tools:
                providers[tool.capability] = providers.get(tool.capability, 0) + 1
        dependencies = GaugeMetricFamily(
            "mesh_registry_dependencies", "Dependency slots of healthy agents, by state", labels=["state"]
        )
        for state_name, count in slots.items():
            dependencies.add_metric([state_name], float(count))
        yield dependencies
        capabilities = GaugeMetricFamily(
            "mesh_registry_capability_providers", "Healthy providers per capability", labels=["capability"]
        )
        for capability, count in sorted(providers.items()):
            capabilities.add_metric([capability], float(count))
        yield capabilities


def registry_metrics_route(store: Any) -> Route:
    """`GET /metrics` for a registry app over `store`."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(RegistryCollector(store))

    async def metrics(request: Request) -> Response:
        return metrics_response(registry, request)

    return Route("/metrics", metrics, methods=["GET"])
