"""Prometheus metrics of an agent: `MeshMetrics` (the instruments, one registry per agent) and `/metrics`.
Names load on first use, so the package costs no prometheus_client import until metrics are used."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .labels import BoundedLabel
    from .mesh_metrics import MeshMetrics
    from .route import metrics_response

__all__ = ["BoundedLabel", "MeshMetrics", "metrics_response"]

_HOMES = {"BoundedLabel": ".labels", "MeshMetrics": ".mesh_metrics", "metrics_response": ".route"}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals())
