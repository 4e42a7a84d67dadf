"""Health of an agent: indicators, their cached verdict, and the drain of a stopping agent."""

from .drain import Drain
from .indicator import HealthIndicator, NamedIndicator, collect_indicators, health_indicator
from .monitor import HealthMonitor, HealthReport
from .status import Health, HealthStatus, aggregate, to_health

__all__ = [
    "Drain",
    "Health",
    "HealthIndicator",
    "HealthMonitor",
    "HealthReport",
    "NamedIndicator",
    "HealthStatus",
    "aggregate",
    "collect_indicators",
    "health_indicator",
    "to_health",
]
