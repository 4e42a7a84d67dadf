"""Tracing as an auto-configuration: an agent that traces (`tracing.enabled`), names its calls in JSON logs
(`logging.format: json`) or joins a registry (whose console gathers its spans) gets the tracing feature's
tracer (tracing/beans.py), which the core calls around every call (observation.Tracer); any other agent
keeps the core's no-op tracer and loads none of the tracing modules."""

from __future__ import annotations

from ..di.conditions import ConditionContext, conditional
from ..di.configuration import configuration, imports

__all__ = ["TracingAutoConfiguration"]


def _traces(context: ConditionContext) -> tuple[bool, str]:
    settings = context.settings
    if settings.tracing.enabled:
        return True, "tracing.enabled"
    if settings.logging.format == "json":
        return True, "logging.format is json: logs name each call"
    if settings.registry.enabled:
        return True, "registry.enabled: the console gathers the agent's spans"
    return False, "tracing.enabled is off, logs are text and no registry gathers spans"


@configuration
@conditional(_traces, "tracing.enabled, JSON logs or registry.enabled")
@imports("mesh_framework.tracing.beans:TracingBeans")
class TracingAutoConfiguration:
    """Gates the tracer (tracing/beans.py) on the agent tracing, logging JSON or joining a registry."""
