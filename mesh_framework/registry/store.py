"""`RegistryStore`: the embedded registry's state, in memory and optionally in a SQLite file.

Fast paths. A refresh `POST /heartbeat` whose payload equals the last one is neither re-validated nor
re-resolved: the agent's cached answer is sent again. A `HEAD` is a dict lookup. Answers are recomputed
only for consumers that watch a capability whose providers changed (an agent registered, changed its
tools, was deleted, turned unhealthy or came back), lazily on their next HEAD/POST/listing, and compared
with the last answer POSTed to that consumer: a HEAD answers 202 only when *its own* answer changed
(MCP Mesh answers 202 to everybody after any change).

Restart. With a database, every change is written through (never a plain refresh). A restarted store
loads the agents it knew: healthy ones count as freshly seen, so they stay healthy for one `timeout`,
and the answer last sent to each is kept. An agent that is still alive keeps HEADing, gets 200 (or 202
if its answer really changed meanwhile) and never notices the restart; one that died while the registry
was down times out as usual, and its consumers get 202. Unhealthy or deleted agents get 410 as before,
and their next POST revives them.

Not thread-safe: use one store from one event loop (every method is synchronous and short). Writes to
the database are queued to its writer thread (`sqlite_writer.py`), never run on the loop; `flush()`
waits for them, `close()` writes what is queued before closing the file.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._frozen import frozen, record
from .audit import DEFAULT_HISTORY, AuditLog
from .events import StoreEvent, StoreEvents
from .payload import PayloadError, Registration, ToolRecord, parse_registration
from .resolution import Answer, explain_slot, resolve
from .schema_catalog import SchemaCatalog

if TYPE_CHECKING:  # SQLite: loaded for a registry given a database only
    from .persistence import SqliteAgents

__all__ = ["DEFAULT_TIMEOUT", "AgentState", "HeartbeatResult", "RegistryStore"]

logger = logging.getLogger("mesh_framework.registry")

DEFAULT_TIMEOUT = 20.0
DEFAULT_PURGE_AFTER = 3600.0


@record(slots=True, eq=False)
class AgentState:
    """One agent as the store tracks it; times are wall-clock (`created_at`, `last_seen`) or monotonic."""

    registration: Registration
    healthy: bool
    created_at: float
    last_seen: float
    seen_at: float
    unhealthy_since: float = 0.0
    answer: Answer | None = None  # the latest computed answer
    sent: Answer | None = None  # the answer of its last POST
    stale: bool = True  # providers it watches changed since `answer` was computed
    changed: bool = False  # `answer` differs from `sent`: HEAD says 202
    watching: tuple[str, ...] = ()
    wildcard: bool = False

    @property
    def agent_id(self) -> str:
        return self.registration.agent_id


@frozen
class HeartbeatResult:
    """What a `POST /heartbeat` did: `created` is true for a new (or revived) agent."""

    registration: Registration
    answer: Answer
    created: bool


@record(slots=True)
class _Watchers:
    by_capability: dict[str, set[str]] = field(default_factory=dict)
    wildcard: set[str] = field(default_factory=set)


def _watched(registration: Registration) -> tuple[tuple[str, ...], bool]:
    capabilities: set[str] = set()
    wildcard = False
    for tool in registration.tools:
        for slot in tool.dependencies:
            capabilities.update(q.capability for q in slot.alternatives)
        if tool.llm_provider is not None:
            capabilities.add(tool.llm_provider.capability)
        if tool.llm_filter is not None:
            wildcard = wildcard or tool.llm_filter.wildcard
            capabilities.update(q.capability for q in tool.llm_filter.entries if q.capability != "*")
    return tuple(sorted(capabilities)), wildcard


def _provided(registration: Registration) -> set[str]:
    return {t.capability for t in registration.tools}


class RegistryStore:
    """The registry's agents, their tools indexed by capability, and what each consumer was told.

    Usage:

        store = RegistryStore("registry.db", timeout=20)
        result = store.heartbeat(payload)        # raises PayloadError
        store.head("calc-1234abcd")              # 200, 202 or 410
        store.sweep()                            # marks agents silent for `timeout` seconds unhealthy
    """

    def __init__(
        self,
        database: str | Path | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        purge_after: float = DEFAULT_PURGE_AFTER,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
        audit_history: int = DEFAULT_HISTORY,
    ) -> None:
        if timeout <= 0:
            raise ValueError(f"Registry timeout must be positive, not {timeout!r}")
        self.timeout = timeout
        self.purge_after = purge_after
        self._clock = clock
        self._wall = wall
        self.started_at = clock()
        self._agents: dict[str, AgentState] = {}
        self._index: dict[str, list[ToolRecord]] = {}
        self._watchers = _Watchers()
        self.events = StoreEvents()  # registry/events.py: the push stream and the page listen
        self.audit = AuditLog(audit_history)  # registry/audit.py: why each slot wired, for GET /events
        self.schemas = SchemaCatalog()  # registry/schema_catalog.py: published schemas, for GET /schemas
        self._db: SqliteAgents | None = None
        if database is not None:
            from .persistence import SqliteAgents

            self._db = SqliteAgents(database)
            self._load(self._db)

    # -- queries ------------------------------------------------------------------------------------

    @property
    def database(self) -> SqliteAgents | None:
        """The SQLite file this store writes through to, if it has one (open until `close`)."""
        return self._db

    @property
    def uptime(self) -> float:
        return self._clock() - self.started_at

    def get(self, agent_id: str) -> AgentState | None:
        return self._agents.get(agent_id)

    def agents(self) -> list[AgentState]:
        """Every known agent (unhealthy ones until purged), with current answers for healthy ones."""
        states = sorted(self._agents.values(), key=lambda s: s.created_at)
        for state in states:
            if state.healthy and state.stale:
                self._refresh(state)
        return states

    # -- protocol operations ------------------------------------------------------------------------

    def heartbeat(self, body: Any) -> HeartbeatResult:
        """Register or refresh an agent from a decoded `POST /heartbeat` body; returns its answer."""
        agent_id = body.get("agent_id") if isinstance(body, dict) else None
        down = isinstance(body, dict) and body.get("status") == "unhealthy"  # MCP Mesh's field: not offered
        state = self._agents.get(agent_id) if isinstance(agent_id, str) else None
        same = state is not None and state.registration.raw == body
        registration = state.registration if state is not None and same else self._parse(body)
        now, wall = self._clock(), self._wall()
        persist = not same
        if state is None:
            created = True
            state = AgentState(registration, healthy=True, created_at=wall, last_seen=wall, seen_at=now)
            self._agents[registration.agent_id] = state
            self._add(state)
            self._notify(_provided(registration))
            self.events.emit(StoreEvent("registered", registration.agent_id))
            self._lifecycle("register", registration)
            logger.info("agent %s registered at %s", registration.agent_id, registration.endpoint)
        else:
            created = not state.healthy and not down
            old = state.registration
            if not same:
                self._remove(state)
                state.registration = registration
                self._add(state)
                if old.consumer_view != registration.consumer_view:
                    state.stale = True
            if created:
                persist = True
                self._set_health(state, True, now)
                self._lifecycle("register", registration)
                logger.info("agent %s is back at %s", registration.agent_id, registration.endpoint)
            if created or old.provider_view != registration.provider_view:
                self._notify(_provided(old) | _provided(registration))
            if created or not same:
                self.events.emit(StoreEvent("registered" if created else "updated", registration.agent_id))
        state.seen_at, state.last_seen = now, wall
        if down and state.healthy:
            self._mark_unhealthy(state, "reported unhealthy")
        if state.stale or state.answer is None:
            state.answer = resolve(registration, self._index, self.audit)
            state.stale = False
        answer = state.answer
        answer_changed = answer != state.sent
        state.sent, state.changed = answer, False
        if self._db is not None:
            if persist:
                self._save(state)
            elif answer_changed:
                self._db.save_answer(registration.agent_id, answer, wall)
        return HeartbeatResult(registration, answer, created)

    def _parse(self, body: Any) -> Registration:
        """A new or changed registration, its published schemas kept (GET /schemas)."""
        registration = parse_registration(body)
        self.schemas.record(registration)
        return registration

    def head(self, agent_id: str) -> int:
        """200 nothing changed for this agent, 202 its answer changed (POST again), 410 unknown/unhealthy."""
        state = self._agents.get(agent_id)
        if state is None or not state.healthy:
            return 410
        now = self._clock()
        if now - state.seen_at > self.timeout:
            self._mark_unhealthy(state, "timed out")
            return 410
        state.seen_at, state.last_seen = now, self._wall()
        if state.stale:
            self._refresh(state)
        return 202 if state.changed else 200

    def current_answer(self, agent_id: str) -> Answer | None:
        """The answer `agent_id` would get now (recomputed if stale); None if unknown or unhealthy."""
        state = self._agents.get(agent_id)
        if state is None or not state.healthy:
            return None
        if state.stale or state.answer is None:
            self._refresh(state)
        return state.answer

    def explain(self, agent_id: str, function_name: str, dep_index: int) -> dict[str, Any] | None:
        """How the slot `dep_index` of `agent_id`'s tool `function_name` resolves now, as an audit event's
        `data` (every stage, whether or not the audit log would record it); None for an unknown slot."""
        state = self._agents.get(agent_id)
        if state is None:
            return None
        trace = explain_slot(state.registration, self._index, function_name, dep_index)
        return trace.data(agent_id, dep_index) if trace is not None else None

    def mark_sent(self, agent_id: str, answer: Answer) -> None:
        """`answer` reached the agent another way (the push stream): HEAD stops saying 202 for it."""
        state = self._agents.get(agent_id)
        if state is None or state.answer is not answer:
            return
        if answer != state.sent and self._db is not None:
            self._db.save_answer(agent_id, answer, self._wall())
        state.sent, state.changed = answer, False

    def delete(self, agent_id: str) -> None:
        """Unregister (soft: the agent is kept as unhealthy until purged); unknown ids are fine."""
        state = self._agents.get(agent_id)
        if state is not None and state.healthy:
            self._mark_unhealthy(state, "unregistered")

    def sweep(self) -> list[str]:
        """Mark agents silent for `timeout` seconds unhealthy and purge long-unhealthy ones.

        Returns the ids that turned unhealthy.
        """
        now = self._clock()
        expired = [s for s in self._agents.values() if s.healthy and now - s.seen_at > self.timeout]
        for state in expired:
            self._mark_unhealthy(state, "timed out")
        for state in [
            s for s in self._agents.values() if not s.healthy and now - s.unhealthy_since > self.purge_after
        ]:
            self._remove(state)
            del self._agents[state.agent_id]
            self.events.emit(StoreEvent("purged", state.agent_id))
            self.audit.forget((state.agent_id,))
            if self._db is not None:
                self._db.delete(state.agent_id)
        if self._db is not None:
            self._db.touch((s.agent_id, s.last_seen) for s in self._agents.values() if s.healthy)
        return [s.agent_id for s in expired]

    def flush(self) -> None:
        """Wait until every change made so far is in the database (if any); blocks the caller."""
        if self._db is not None:
            self._db.flush()

    def close(self) -> None:
        """Write last-seen times and what is queued, and close the database (if any)."""
        if self._db is not None:
            self._db.touch((s.agent_id, s.last_seen) for s in self._agents.values() if s.healthy)
            self._db.close()
            self._db = None

    # -- internals ----------------------------------------------------------------------------------

    def _lifecycle(self, kind: str, registration: Registration) -> None:
        name = registration.name
        data = {"agent_type": registration.agent_type, "name": name, "version": registration.version}
        self.audit.lifecycle(kind, registration.agent_id, name, data)

    def _refresh(self, state: AgentState) -> None:
        state.answer = resolve(state.registration, self._index, self.audit)
        state.stale = False
        state.changed = state.answer != state.sent

    def _add(self, state: AgentState) -> None:
        for tool in state.registration.tools:
            tool.healthy = state.healthy
            self._index.setdefault(tool.capability, []).append(tool)
        state.watching, state.wildcard = _watched(state.registration)
        for capability in state.watching:
            self._watchers.by_capability.setdefault(capability, set()).add(state.agent_id)
        if state.wildcard:
            self._watchers.wildcard.add(state.agent_id)

    def _remove(self, state: AgentState) -> None:
        for tool in state.registration.tools:
            tools = self._index.get(tool.capability)
            if tools is not None:
                tools.remove(tool)
                if not tools:
                    del self._index[tool.capability]
        for capability in state.watching:
            watchers = self._watchers.by_capability.get(capability)
            if watchers is not None:
                watchers.discard(state.agent_id)
                if not watchers:
                    del self._watchers.by_capability[capability]
        self._watchers.wildcard.discard(state.agent_id)

    def _notify(self, capabilities: Iterable[str]) -> None:
        """Providers of `capabilities` changed: their consumers' answers must be recomputed."""
        consumers = set(self._watchers.wildcard)
        for capability in capabilities:
            consumers.update(self._watchers.by_capability.get(capability, ()))
        for agent_id in consumers:
            self._agents[agent_id].stale = True
        self.events.emit(StoreEvent("providers", consumers=frozenset(consumers)))

    def _set_health(self, state: AgentState, healthy: bool, now: float) -> None:
        state.healthy = healthy
        if not healthy:
            state.unhealthy_since = now
        for tool in state.registration.tools:
            tool.healthy = healthy

    def _mark_unhealthy(self, state: AgentState, reason: str) -> None:
        self._set_health(state, False, self._clock())
        self._notify(_provided(state.registration))
        self.events.emit(StoreEvent("unhealthy", state.agent_id))
        self._lifecycle("unregister" if reason == "unregistered" else "unhealthy", state.registration)
        if reason == "unregistered":  # a clean stop: the agent said goodbye, nothing is wrong with it
            logger.info("agent %s left the mesh (unregistered)", state.agent_id)
        else:
            logger.info("agent %s is unhealthy (%s)", state.agent_id, reason)
        if self._db is not None:
            self._db.save_health(state.agent_id, False, state.last_seen)

    def _save(self, state: AgentState) -> None:
        assert self._db is not None
        self._db.save(
            state.agent_id,
            state.registration.raw,
            healthy=state.healthy,
            created_at=state.created_at,
            last_seen=state.last_seen,
            answer=state.sent,
        )

    def _load(self, db: SqliteAgents) -> None:
        now = self._clock()
        for stored in db.load():
            try:
                registration = parse_registration(stored.payload)
            except PayloadError as exc:
                logger.warning("skipping stored agent %s: %s", stored.agent_id, exc)
                continue
            state = AgentState(
                registration,
                healthy=stored.healthy,
                created_at=stored.created_at,
                last_seen=stored.last_seen,
                seen_at=now,  # a grace of one timeout: live agents HEAD again before it runs out
                unhealthy_since=now,
                sent=stored.answer,
            )
            self._agents[registration.agent_id] = state
            self._add(state)
            self.schemas.record(registration)
        if self._agents:
            logger.info("loaded %d agent(s) from %s", len(self._agents), db.path)
