"""`HealthStatus` and `Health`: what one health indicator, or the whole agent, reports.

An indicator may return a `Health`, a `HealthStatus`, a bool, one of the strings `UP`/`DOWN`/`DEGRADED`
(or MCP Mesh's `healthy`/`unhealthy`/`degraded`, any case), a mapping in MCP Mesh's shape (`{"status":
..., "checks": {...}, "errors": [...]}`), or None (UP). `to_health` reads all of them; anything else is
DOWN with a reason, so a check that answers nonsense never keeps a broken agent in the mesh.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import field
from typing import Any

from .._frozen import frozen

__all__ = ["Health", "HealthStatus", "aggregate", "to_health"]


class HealthStatus(enum.Enum):
    """UP serves; DEGRADED serves and says so; DOWN is withdrawn from the mesh until it is UP again."""

    UP = "UP"
    DEGRADED = "DEGRADED"
    DOWN = "DOWN"

    @property
    def mesh_status(self) -> str:
        """The value of MCP Mesh's heartbeat `status` field."""
        return _MESH[self]


_MESH = {HealthStatus.UP: "healthy", HealthStatus.DEGRADED: "degraded", HealthStatus.DOWN: "unhealthy"}
_NAMES = {
    "up": HealthStatus.UP,
    "healthy": HealthStatus.UP,
    "degraded": HealthStatus.DEGRADED,
    "down": HealthStatus.DOWN,
    "unhealthy": HealthStatus.DOWN,
}
_ORDER = {HealthStatus.UP: 0, HealthStatus.DEGRADED: 1, HealthStatus.DOWN: 2}


@frozen
class Health:
    """A status with details (JSON-ready values; shown on `/health` only when `health.show_details`)."""

    status: HealthStatus
    details: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def up(cls, **details: Any) -> Health:
        return cls(HealthStatus.UP, details)

    @classmethod
    def degraded(cls, **details: Any) -> Health:
        return cls(HealthStatus.DEGRADED, details)

    @classmethod
    def down(cls, **details: Any) -> Health:
        return cls(HealthStatus.DOWN, details)


def to_health(value: Any) -> Health:
    """Whatever an indicator returned, as a `Health` (unreadable answers are DOWN, with the reason)."""
    if isinstance(value, Health):
        return value
    if value is None:
        return Health(HealthStatus.UP)
    if isinstance(value, HealthStatus):
        return Health(value)
    if isinstance(value, bool):
        return Health(HealthStatus.UP if value else HealthStatus.DOWN)
    if isinstance(value, str):
        status = _NAMES.get(value.strip().lower())
        if status is not None:
            return Health(status)
        return Health.down(error=f"unknown health status {value[:40]!r}; use UP, DEGRADED or DOWN")
    if isinstance(value, Mapping):
        health = to_health(value.get("status", HealthStatus.UP))
        details = {k: v for k, v in value.items() if k != "status"}
        return Health(health.status, {**health.details, **details})
    return Health.down(
        error=f"a health check returned {type(value).__name__}; return a Health, HealthStatus, bool or None"
    )


def aggregate(statuses: Iterable[HealthStatus]) -> HealthStatus:
    """The worst of `statuses` (DOWN > DEGRADED > UP); UP when there are none."""
    return max(statuses, key=_ORDER.__getitem__, default=HealthStatus.UP)
