"""The tracing feature's bean (gated by tracing/auto_configuration.py): the agent's tracer, unless the app
defines a `Tracer` of its own."""

from __future__ import annotations

from ..config.settings import MeshSettings
from ..di.conditions import conditional_on_missing_bean
from ..di.configuration import bean, configuration
from ..observation import Tracer
from .tracer import SpanTracer

__all__ = ["TracingBeans"]


@configuration
class TracingBeans:
    @bean
    @conditional_on_missing_bean(Tracer)
    def span_tracer(self, settings: MeshSettings) -> Tracer:
        return SpanTracer(
            settings.tracing, agent=settings.agent.name, json_logs=settings.logging.format == "json"
        )
