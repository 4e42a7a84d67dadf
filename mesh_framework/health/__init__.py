"""Health of an agent: indicators, their cached verdict, and the probes that read it. Names load on first
use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ..protocol.drain import Drain
    from .indicator import HealthIndicator, NamedIndicator, collect_indicators, health_indicator
    from .monitor import HealthMonitor, HealthReport
    from .status import Health, HealthStatus, aggregate, to_health

__all__ = [
    "Drain",
    "Health",
    "HealthIndicator",
    "HealthMonitor",
    "HealthReport",
    "HealthStatus",
    "NamedIndicator",
    "aggregate",
    "collect_indicators",
    "health_indicator",
    "to_health",
]

_HOMES = {
    "Drain": "..protocol.drain",
    "Health": ".status",
    "HealthIndicator": ".indicator",
    "HealthMonitor": ".monitor",
    "HealthReport": ".monitor",
    "HealthStatus": ".status",
    "NamedIndicator": ".indicator",
    "aggregate": ".status",
    "collect_indicators": ".indicator",
    "health_indicator": ".indicator",
    "to_health": ".status",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals())
