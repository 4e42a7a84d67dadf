"""The resolution audit: why a dependency slot wired to a provider, or did not, in MCP Mesh's event format.

Each resolution of a slot runs the stages health → capability_match → tags → version → schema →
tiebreaker (`registry/resolution.py`); the trace says what each stage kept and evicted, and why:

    {"consumer": "calc-1a2b3c4d", "dep_index": 0,
     "spec": {"capability": "add", "tags": ["fast"], "schema_mode": "none"},
     "stages": [{"stage": "health", "kept": ["p1:add", "p2:add"]}, ...,
                {"stage": "tags", "kept": [], "evicted": [{"id": "p2:add", "reason": "MissingTag",
                                                           "details": {"missing": ["fast"]}}]}]}

Eviction reasons: `Unhealthy`, `NamespaceMismatch` (ours: MCP Mesh resolves across namespaces only by
explicit selector), `MissingTag`, `ExtraTagDisallowed`, `VersionConstraintFailed`, `SchemaIncompatible`.

Gating, as MCP Mesh's registry: a trace is recorded only when it says something (two or more candidates
entered a stage; or it is unresolved with a candidate evicted; or the chosen provider changed; or the slot
went from unresolved to resolved or back) and differs from the slot's previous trace. A stable mesh
re-resolving the same way records nothing. `AuditLog` keeps the newest `history` events in memory and
answers `GET /events`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import field
from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from .._frozen import frozen, record

__all__ = [
    "DEFAULT_HISTORY",
    "DEFAULT_LIMIT",
    "StageName",
    "EVENT_TYPES",
    "MAX_LIMIT",
    "AuditLog",
    "Eviction",
    "Stage",
    "Trace",
    "candidate_id",
]

DEFAULT_HISTORY = 1000
DEFAULT_LIMIT = 50
MAX_LIMIT = 500
RESOLVED = "dependency_resolved"
UNRESOLVED = "dependency_unresolved"
EVENT_TYPES = (RESOLVED, UNRESOLVED, "register", "unregister", "unhealthy")
TIEBREAKER_REASON = "HighestScoreThenVersion"

StageName = Literal["health", "capability_match", "tags", "version", "schema", "tiebreaker"]


def timestamp() -> str:
    """RFC 3339 UTC with a `Z`, as the registry's other views write it."""
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def candidate_id(agent_id: str, function_name: str) -> str:
    """`agent_id:function_name`, how a trace names a candidate."""
    return f"{agent_id}:{function_name}"


class Candidate(Protocol):
    """What a trace reads from a candidate (the registry's ToolRecord)."""

    @property
    def agent_id(self) -> str: ...
    @property
    def function_name(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def output_schema_hash(self) -> str: ...
    @property
    def tags(self) -> frozenset[str]: ...
    @property
    def namespace(self) -> str: ...
    @property
    def healthy(self) -> bool: ...


def _id(candidate: Candidate) -> str:
    return candidate_id(candidate.agent_id, candidate.function_name)


@frozen
class Eviction:
    """A candidate a stage dropped; `details` may be a function that builds them when the trace is written."""

    candidate: Candidate
    reason: str
    given: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None = None

    @property
    def details(self) -> Mapping[str, Any] | None:
        return self.given() if callable(self.given) else self.given

    @property
    def id(self) -> str:
        return _id(self.candidate)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "reason": self.reason}
        if self.details:
            out["details"] = dict(self.details)
        return out


@record(slots=True)
class Stage:
    """One stage's outcome; candidates are kept as records and named only when the trace is written."""

    stage: StageName
    kept: list[Any] = field(default_factory=list)
    evicted: list[Eviction] = field(default_factory=list)
    chosen: Any = None

    @property
    def kept_ids(self) -> list[str]:
        return [_id(c) for c in self.kept]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"stage": self.stage, "kept": self.kept_ids}
        if self.evicted:
            out["evicted"] = [e.to_json() for e in self.evicted]
        if self.chosen is not None:
            out["chosen"], out["reason"] = _id(self.chosen), TIEBREAKER_REASON
        return out


@record(slots=True)
class Trace:
    """One resolution of one selector; `chosen` is `(agent_id, endpoint, function_name)` or None."""

    capability: str
    tags: list[str]
    version_constraint: str
    schema_mode: str
    stages: list[Stage] = field(default_factory=list)
    chosen: tuple[str, str, str] | None = None
    expected_hash: str = ""  # the consumer's expected schema hash: not written, but part of what was decided

    @property
    def interesting(self) -> bool:
        """Two or more candidates entered some stage (MCP Mesh's test for a real decision)."""
        return any(len(s.kept) + len(s.evicted) >= 2 for s in self.stages)

    @property
    def evicted_any(self) -> bool:
        return any(s.evicted for s in self.stages)

    def data(self, consumer: str, dep_index: int, prior_chosen: str = "") -> dict[str, Any]:
        """The event's `data`, as MCP Mesh's registry writes it."""
        spec: dict[str, Any] = {"capability": self.capability}
        if self.tags:
            spec["tags"] = self.tags
        if self.version_constraint:
            spec["version_constraint"] = self.version_constraint
        spec["schema_mode"] = self.schema_mode
        out: dict[str, Any] = {
            "consumer": consumer,
            "dep_index": dep_index,
            "spec": spec,
            "stages": [s.to_json() for s in self.stages],
        }
        if self.chosen is not None:
            agent_id, endpoint, function_name = self.chosen
            out["chosen"] = {"agent_id": agent_id, "endpoint": endpoint, "function_name": function_name}
        if prior_chosen:
            out["prior_chosen"] = prior_chosen
        return out

    def fingerprint(self) -> int:
        """What the trace decided, order-insensitive within stages (prior_chosen left out); compared only
        within this process, so a plain hash of tuples: it runs on every re-resolution worth recording."""
        stages = tuple(
            (
                s.stage,
                tuple(sorted((c.agent_id, c.function_name) for c in s.kept)),
                tuple(sorted((_state(e.candidate), e.reason) for e in s.evicted)),
                _state(s.chosen) if s.chosen is not None else None,
            )
            for s in self.stages
        )
        spec = (self.capability, tuple(sorted(self.tags)), self.version_constraint, self.schema_mode)
        return hash((spec, self.expected_hash, stages, self.chosen))


def _state(c: Candidate) -> tuple[Any, ...]:
    """What an eviction's details are made of: the candidate's identity and the fields stages read."""
    return (c.agent_id, c.function_name, c.version, c.output_schema_hash, c.tags, c.namespace, c.healthy)


@record(slots=True)
class _SlotState:
    fingerprint: int
    resolved: bool
    chosen: str  # agent id of the last resolved event's choice


SlotKey = tuple[str, str, int]  # (consumer agent id, function name, dependency index)


class AuditLog:
    """Registry events, newest last in memory, at most `history` of them; `query` answers `GET /events`."""

    def __init__(self, history: int = DEFAULT_HISTORY) -> None:
        if history < 1:
            raise ValueError(f"The audit history must keep at least one event, not {history!r}")
        self.history = history
        self._events: deque[dict[str, Any]] = deque(maxlen=history)
        self._slots: dict[SlotKey, _SlotState] = {}

    def __len__(self) -> int:
        return len(self._events)

    def record(
        self, consumer: str, consumer_name: str, function_name: str, dep_index: int, trace: Trace
    ) -> dict[str, Any] | None:
        """Record the trace of one slot if MCP Mesh's gating says it is worth it; the event, or None."""
        key = (consumer, function_name, dep_index)
        last = self._slots.get(key)
        resolved = trace.chosen is not None
        prior = last.chosen if last is not None else ""
        if resolved:
            assert trace.chosen is not None
            flipped = bool(prior) and prior != trace.chosen[0]
            came_back = last is not None and not last.resolved
            if not (trace.interesting or flipped or came_back):
                return None
        elif not (trace.interesting or trace.evicted_any or (last is not None and last.resolved)):
            return None
        fingerprint = trace.fingerprint()
        if last is not None and last.fingerprint == fingerprint:
            return None
        chosen = trace.chosen[0] if trace.chosen is not None else prior
        self._slots[key] = _SlotState(fingerprint, resolved, chosen)
        event = {
            "agent_id": consumer,
            "agent_name": consumer_name,
            "data": trace.data(consumer, dep_index, prior),
            "event_type": RESOLVED if resolved else UNRESOLVED,
            "function_name": function_name,
            "timestamp": timestamp(),
        }
        self._events.append(event)
        return event

    def lifecycle(self, event_type: str, agent_id: str, agent_name: str, data: Mapping[str, Any]) -> None:
        """A `register`, `unregister` or `unhealthy` event."""
        self._events.append(
            {
                "agent_id": agent_id,
                "agent_name": agent_name,
                "data": dict(data),
                "event_type": event_type,
                "timestamp": timestamp(),
            }
        )

    def forget(self, agent_ids: Iterable[str]) -> None:
        """Agents purged from the registry: their slots' last traces go (their events stay until rotated)."""
        gone = set(agent_ids)
        for key in [k for k in self._slots if k[0] in gone]:
            del self._slots[key]

    def query(
        self,
        *,
        agent_id: str | None = None,
        event_type: str | None = None,
        function_name: str | None = None,
        limit: int = DEFAULT_LIMIT,
    ) -> list[dict[str, Any]]:
        """Events matching every filter given, newest first, at most `limit` (clamped to 1..MAX_LIMIT)."""
        limit = max(1, min(limit, MAX_LIMIT))
        found: list[dict[str, Any]] = []
        for event in self._newest_first():
            if agent_id and event["agent_id"] != agent_id:
                continue
            if event_type and event["event_type"] != event_type:
                continue
            if function_name and event.get("function_name") != function_name:
                continue
            found.append(event)
            if len(found) >= limit:
                break
        return found

    def _newest_first(self) -> Iterator[dict[str, Any]]:
        yield from reversed(self._events)
