"""`Status` and `Health`: what one health indicator, or the whole agent, reports.

An indicator may return a `Health`, a `Status`, a bool, one of the strings `UP`/`DOWN`/`DEGRADED` (or MCP
Mesh's `healthy`/`unhealthy`/`degraded`, any case), a mapping in MCP Mesh's shape (`{"status": ...,
"checks": {...}, "errors": [...]}`), or None (UP). `to_health` reads all of them; anything else is DOWN with
a reason, so a check that answers nonsense never keeps a broken agent in the mesh.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Health", "Status", "aggregate", "to_health"]


class Status(enum.Enum):
    """UP serves; DEGRADED serves and says so; DOWN is withdrawn from the mesh until it is UP again."""

    UP = "UP"
    DEGRADED = "DEGRADED"
    DOWN = "DOWN"

    @property
    def mesh_status(self) -> str:
        """The value of MCP Mesh's heartbeat `status` field."""
        return _MESH[self]


_MESH = {Status.UP: "healthy", Status.DEGRADED: "degraded", Status.DOWN: "unhealthy"}
_NAMES = {
    "up": Status.UP,
    "healthy": Status.UP,
    "degraded": Status.DEGRADED,
    "down": Status.DOWN,
    "unhealthy": Status.DOWN,
}
_ORDER = {Status.UP: 0, Status.DEGRADED: 1, Status.DOWN: 2}


@dataclass(frozen=True, slots=True)
class Health:
    """A status with details (JSON-ready values; shown on `/health` only when `health.show_details`)."""

    status: Status
    details: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def up(cls, **details: Any) -> Health:
        return cls(Status.UP, details)

    @classmethod
    def degraded(cls, **details: Any) -> Health:
        return cls(Status.DEGRADED, details)

    @classmethod
    def down(cls, **details: Any) -> Health:
        return cls(Status.DOWN, details)


def to_health(value: Any) -> Health:
    """Whatever an indicator returned, as a `Health` (unreadable answers are DOWN, with the reason)."""
    if isinstance(value, Health):
        return value
    if value is None:
        return Health(Status.UP)
    if isinstance(value, Status):
        return Health(value)
    if isinstance(value, bool):
        return Health(Status.UP if value else Status.DOWN)
    if isinstance(value, str):
        status = _NAMES.get(value.strip().lower())
        if status is not None:
            return Health(status)
        return Health.down(error=f"unknown health status {value[:40]!r}; use UP, DEGRADED or DOWN")
    if isinstance(value, Mapping):
        health = to_health(value.get("status", Status.UP))
        details = {k: v for k, v in value.items() if k != "status"}
        return Health(health.status, {**health.details, **details})
    return Health.down(
        error=f"a health check returned {type(value).__name__}; return a Health, a Status, a bool or None"
    )


def aggregate(statuses: Iterable[Status]) -> Status:
    """The worst of `statuses` (DOWN > DEGRADED > UP); UP when there are none."""
    return max(statuses, key=_ORDER.__getitem__, default=Status.UP)
