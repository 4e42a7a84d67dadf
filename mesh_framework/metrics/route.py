"""`/metrics`: the registry in Prometheus' text format (or OpenMetrics when the scraper asks for it)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder
from starlette.requests import Request
from starlette.responses import Response

__all__ = ["metrics_response"]


def metrics_response(registry: CollectorRegistry, request: Request) -> Response:
    encoder, content_type = choose_encoder(request.headers.get("accept", ""))
    return Response(encoder(registry), media_type=None, headers={"content-type": content_type})
