"""Metrics as an auto-configuration: with `metrics.enabled` the agent's Prometheus instruments watch its
traffic and are served on `/metrics`; an app with metrics off whose component asks for `MeshMetrics`
still gets the instruments (made when asked for, not served). Any other app loads no module of metrics,
nor prometheus_client."""

from __future__ import annotations

from ..di.conditions import ConditionContext, conditional
from ..di.configuration import configuration, imports
from ..di.usage import asks_for

__all__ = ["METRICS_TYPE", "MetricsAutoConfiguration", "uses_metrics"]

METRICS_TYPE = "mesh_framework.metrics.mesh_metrics.MeshMetrics"


def uses_metrics(context: ConditionContext) -> tuple[bool, str]:
    if context.settings.metrics.enabled:
        return True, "metrics.enabled"
    asked = asks_for(context.scan, {METRICS_TYPE}) if context.scan is not None else None
    if asked is not None:
        return True, asked
    return False, "metrics.enabled is off and nothing asks for MeshMetrics"


@configuration
@conditional(uses_metrics, "metrics.enabled, or a component asking for MeshMetrics")
@imports("mesh_framework.metrics.beans:MetricsBeans")
class MetricsAutoConfiguration:
    """Gates the metrics' beans (metrics/beans.py) on the app using them."""
