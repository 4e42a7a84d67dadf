"""`configure_tracing`: the process's tracer from the `tracing.*` settings (and the SDK's `OTEL_*`
variables: endpoint, headers, sampler, batch sizes, `OTEL_SERVICE_NAME`, `OTEL_SDK_DISABLED`).

The OpenTelemetry API is a core dependency; the SDK and the OTLP exporter come with the `otel` extra.
Without the SDK, tracing stays off and one warning says how to install it.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from .state import state

__all__ = ["configure_tracing", "tracer_provider"]

logger = logging.getLogger("mesh_framework.tracing")

INSTALL_HINT = "install the extra: pip install 'mesh-framework[otel]'"


def configure_tracing(settings: Any, *, agent: str, json_logs: bool = False) -> bool:
    """Turn tracing on or off for this process from `settings` (a `TracingSettings`); True when on.

    The first provider built also becomes OpenTelemetry's global one, so spans of the application's own
    instrumentation join the agent's traces."""
    state.agent = agent
    state.log_calls = json_logs
    if not settings.enabled:
        state.tracer = state.provider = None
        return False
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
    except ImportError:
        logger.warning(
            "tracing.enabled is true but the OpenTelemetry SDK is missing; tracing is off (%s)", INSTALL_HINT
        )
        state.tracer = state.provider = None
        return False
    service = os.environ.get("OTEL_SERVICE_NAME") or agent
    key = (service, agent, settings.exporter, settings.endpoint, settings.file)
    if state.provider is not None and state.key == key:
        return True  # built again (tests): keep the provider, and the processors added to it
    provider = TracerProvider(resource=Resource.create({"service.name": service, "mesh.agent": agent}))
    processor = _processor(settings)
    if processor is not None:
        provider.add_span_processor(processor)
    from opentelemetry import trace

    from .._version import __version__

    # Until a provider is set, the API hands out its proxy (public in `opentelemetry.trace`, though not in
    # its `__all__`); setting ours only then leaves an application's own provider alone.
    if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        trace.set_tracer_provider(provider)
    state.provider = provider
    state.key = key
    state.tracer = provider.get_tracer("mesh_framework", __version__)
    return True


def _processor(settings: Any) -> Any:
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    exporter = settings.exporter
    if exporter == "none":
        return None
    if exporter == "file":
        from .file_exporter import JsonLinesSpanExporter

        return SimpleSpanProcessor(JsonLinesSpanExporter(settings.file))
    if exporter == "console":
        from opentelemetry.sdk.trace.export import ConsoleSpanExporter

        return SimpleSpanProcessor(ConsoleSpanExporter())
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    except ImportError:
        logger.warning(
            "tracing.exporter is 'otlp' but the OTLP exporter is missing; spans are not exported (%s)",
            INSTALL_HINT,
        )
        return None
    return BatchSpanProcessor(OTLPSpanExporter(endpoint=settings.endpoint or None))


def tracer_provider() -> Any:
    """The SDK `TracerProvider` this process traces with, or None while tracing is off (tests add an
    in-memory exporter to it: `tracer_provider().add_span_processor(...)`)."""
    return state.provider
