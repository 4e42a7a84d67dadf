"""The metrics' beans (gated by metrics/auto_configuration.py): the instruments (`metrics`, made on first
use), and with `metrics.enabled` `/metrics`, the observer of the agent's traffic and the gauges read at
scrape time (dependency slots, health)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..di.conditions import ConditionContext, conditional
from ..di.configuration import bean, configuration
from ..extension import AgentInitializer, BuiltAgent, CallObserver, HttpSurface
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .mesh_metrics import MeshMetrics

__all__ = ["METRICS_ORDER", "MetricsBeans", "MetricsObserver"]

METRICS_ORDER = -200  # `/metrics` after the probes, before `/status`


class MetricsObserver(CallObserver):
    """The instruments' hooks; a call served goes straight to the counters (no call in between)."""

    def __init__(self, metrics: MeshMetrics) -> None:
        self.tool_call = metrics.calls.tool_call
        self.proxy_call = metrics.proxy_call
        self.proxy_failover = metrics.proxy_failover
        self.llm_usage = metrics.llm_usage
        self.registry_request = metrics.registry_request


class _Watch(AgentInitializer):
    """The gauges read at scrape time: the tools' dependency slots and the agent's health (when the health
    feature gives one)."""

    def __init__(self, metrics: MeshMetrics, tools: MeshToolWrapperRegistry) -> None:
        self.metrics = metrics
        self.tools = tools

    def initialize(self, agent: BuiltAgent) -> None:
        self.metrics.watch(self.tools, agent.lookup.get("health_monitor"))


def _served(context: ConditionContext) -> tuple[bool, str]:
    enabled = bool(context.settings.metrics.enabled)
    return enabled, "metrics.enabled" if enabled else "metrics.enabled is off: not served nor recorded"


def _metrics_route(metrics: MeshMetrics) -> Route:
    registry = metrics.registry

    async def serve(request: Request) -> Response:
        from .route import metrics_response  # loaded with the first scrape

        return metrics_response(registry, request)

    return Route("/metrics", serve, methods=["GET"])


@configuration
class MetricsBeans:
    @bean(lazy=True)
    def metrics(self) -> MeshMetrics:
        return MeshMetrics()

    @bean(order=METRICS_ORDER)
    @conditional(_served, "metrics.enabled")
    def metrics_surface(self, metrics: MeshMetrics) -> HttpSurface:
        return HttpSurface([_metrics_route(metrics)], order=METRICS_ORDER)

    @bean
    @conditional(_served, "metrics.enabled")
    def metrics_observer(self, metrics: MeshMetrics) -> CallObserver:
        return MetricsObserver(metrics)

    @bean
    @conditional(_served, "metrics.enabled")
    def metrics_gauges(self, metrics: MeshMetrics, tools: MeshToolWrapperRegistry) -> AgentInitializer:
        return _Watch(metrics, tools)
