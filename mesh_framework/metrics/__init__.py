"""Prometheus metrics of an agent: `MeshMetrics` (the instruments, one registry per agent) and `/metrics`."""

from .labels import BoundedLabel
from .mesh_metrics import MeshMetrics
from .route import metrics_response

__all__ = ["BoundedLabel", "MeshMetrics", "metrics_response"]
