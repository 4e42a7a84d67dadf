"""Health of an agent: indicators, their cached verdict, and the drain of a stopping agent."""

from .drain import Drain
from .indicator import HealthIndicator, NamedIndicator, collect_indicators, health_indicator
from .monitor import HealthMonitor, HealthReport
from .status import Health, Status, aggregate, to_health

__all__ = [
    "Drain",
    "Health",
    "HealthIndicator",
    "HealthMonitor",
    "HealthReport",
    "NamedIndicator",
    "Status",
    "aggregate",
    "collect_indicators",
    "health_indicator",
    "to_health",
]
