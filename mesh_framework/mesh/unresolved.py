"""Why a dependency is unresolved, as the registry's resolution audit says it, for logs and call errors.

When the registry's answer leaves dependency slots unresolved (or their set changes), the agent asks the
registry once why: our registry's `GET /explain` (the slot's trace computed now), else MCP Mesh's
`GET /events?agent_id=...&type=dependency_unresolved` (the newest recorded trace of each slot). A reason
is logged on one line, and a call refused for that slot says it:

    Tool 'show' cannot run: its dependency 'caption' (dependency 0) is not resolved: no provider of
    `caption` with tags fast: 2 evicted by tags (calc-1:add: missing fast; calc-2:add: missing fast)

A slot can be unresolved for a moment only: at the first registration its provider may be joining too
(agents started together, as `mesh run APP OTHER_APP` does), and when agents stop together a provider may
leave first. So a reason is logged at INFO ("not resolved yet") until the slot has stayed unresolved from
one heartbeat round to the next (a round: an exchange that left the agent's topology current, with the
registry's news applied); then it gets its WARNING, once. A trace in which the registry picks a provider
is not logged: the agent's next answer resolves the slot.

Cheap by construction: nothing is fetched while every slot is resolved; one fetch per change of the
unresolved set and one when a slot has stayed unresolved through a round, and at most one more per
`interval` seconds when calls keep hitting an unresolved slot.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Callable, Mapping
from typing import Any

import httpx2

from ..resolution_audit import summarize
from ..tools.wrapper_registry import dependency_key
from .topology import ToolSlots, Topology

__all__ = ["UnresolvedReasons"]

logger = logging.getLogger("mesh_framework.mesh")

EVENTS_LIMIT = 200


class UnresolvedReasons:
    """`reasons` maps a slot key (`module.qualname:dep_N`) to the registry's one-line reason."""

    def __init__(
        self,
        http: httpx2.AsyncClient,
        registry_url: Callable[[], str],
        agent_id: str,
        slots: Callable[[], Mapping[str, ToolSlots]],
        *,
        interval: float,
        timeout: float = 5.0,
        token: str | None = None,
    ) -> None:
        self.http = http
        self.registry_url = registry_url
        self.agent_id = agent_id
        self.slots = slots
        self.interval = interval
        self.timeout = timeout
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.reasons: dict[str, str] = {}
        self._unresolved: frozenset[str] = frozenset()
        self._fetched_at = -math.inf
        self._explain = True  # our registry serves /explain; MCP Mesh's does not (then /events only)
        self._held: frozenset[str] = frozenset()  # unresolved at the last heartbeat round, and since
        self._lasting: frozenset[str] = frozenset()  # unresolved from one round to the next: worth a WARNING
        self._warned: dict[str, str] = {}  # slot key -> the reason logged at WARNING
        self._task: asyncio.Task[None] | None = None

    def update(self, topology: Topology) -> None:
        """A registry answer was applied: forget reasons of resolved slots; ask again if the set changed."""
        unresolved = frozenset(k for k, r in topology.dependencies.items() if r is None)
        for key in [k for k in self.reasons if k not in unresolved]:
            del self.reasons[key]
        for key in [k for k in self._warned if k not in unresolved]:
            del self._warned[key]
        self._held &= unresolved
        self._lasting &= unresolved
        if unresolved != self._unresolved:
            self._unresolved = unresolved
            self._schedule(force=True)

    def heartbeat_round(self) -> None:
        """A heartbeat exchange left the topology current: the slots unresolved since the last round are
        asked about again (once), to be warned of."""
        lasting, self._lasting = self._lasting, self._unresolved & self._held
        self._held = self._unresolved
        if self._lasting - lasting:
            self._schedule(force=True)

    def refused(self) -> None:
        """A call was refused for an unresolved slot: refresh the reasons if they are old enough."""
        self._schedule(force=False)

    def _schedule(self, *, force: bool) -> None:
        if not self._unresolved or (self._task is not None and not self._task.done()):
            return
        if not force and time.monotonic() - self._fetched_at < self.interval:
            return
        self._task = asyncio.get_running_loop().create_task(self._fetch(), name="unresolved reasons")

    def _wire_slots(self) -> dict[str, tuple[str, int]]:
        """Slot key -> (the tool's function name on the wire, dependency index)."""
        return {
            dependency_key(slots.key, index): (function_name, index)
            for function_name, slots in self.slots().items()
            for index in range(len(slots.capabilities))
        }

    async def _get(self, path: str, params: Mapping[str, Any]) -> Any:
        response = await self.http.get(
            self.registry_url().rstrip("/") + path, params=params, headers=self.headers, timeout=self.timeout
        )
        if response.status_code == 404 and path == "/explain" and "message" not in response.text:
            self._explain = False  # not our registry
        return response.json() if response.status_code == 200 else None

    async def _fetch(self) -> None:
        self._fetched_at = time.monotonic()
        wire = self._wire_slots()
        wanted = {key: wire[key] for key in self._unresolved if key in wire}
        try:
            traces = await self._explained(wanted) if self._explain else {}
            missing = {k: v for k, v in wanted.items() if k not in traces}
            if missing:
                traces.update(await self._recorded(missing))
        except (httpx2.HTTPError, ValueError) as exc:
            logger.debug("cannot ask the registry why dependencies are unresolved: %s", exc)
            return
        for key, data in traces.items():
            if key not in self._unresolved:
                continue  # resolved meanwhile
            reason = summarize(data)
            told, self.reasons[key] = self.reasons.get(key), reason
            function_name, index = wanted[key]  # the name on the wire, whole: a route's is `GET:/api/x`
            if _picks_a_provider(data):  # the registry resolves it now: the agent's next answer will
                logger.debug("tool '%s': dependency %d resolves: %s", function_name, index, reason)
            elif key in self._lasting:
                if self._warned.get(key) != reason:
                    logger.warning("tool '%s': dependency %d is unresolved: %s", function_name, index, reason)
                    self._warned[key] = reason
            elif told != reason:
                logger.info("tool '%s': dependency %d is not resolved yet: %s", function_name, index, reason)

    async def _explained(self, wanted: Mapping[str, tuple[str, int]]) -> dict[str, Any]:
        traces: dict[str, Any] = {}
        for key, (function_name, index) in wanted.items():
            params = {"agent_id": self.agent_id, "function_name": function_name, "dep_index": index}
            body = await self._get("/explain", params)
            if not self._explain:
                return traces
            if isinstance(body, dict) and isinstance(body.get("trace"), dict):
                traces[key] = body["trace"]
        return traces

    async def _recorded(self, wanted: Mapping[str, tuple[str, int]]) -> dict[str, Any]:
        params = {"agent_id": self.agent_id, "type": "dependency_unresolved", "limit": EVENTS_LIMIT}
        body = await self._get("/events", params)
        events = body.get("events") if isinstance(body, dict) else None
        newest: dict[tuple[str, int], Any] = {}
        for event in events if isinstance(events, list) else ():
            data = event.get("data") if isinstance(event, dict) else None
            if isinstance(data, dict) and isinstance(data.get("dep_index"), int):
                newest.setdefault((str(event.get("function_name", "")), data["dep_index"]), data)
        return {key: newest[slot] for key, slot in wanted.items() if slot in newest}

    async def stop(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._task = None


def _picks_a_provider(trace: Any) -> bool:
    chosen = trace.get("chosen") if isinstance(trace, Mapping) else None
    return isinstance(chosen, Mapping) and bool(chosen.get("agent_id"))
