"""Why a dependency is unresolved, asked of a real registry app in process: once per change of the
unresolved set, at most once more per interval while calls are refused, and the MCP Mesh fallback
(`/events`) when the registry has no `/explain`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest

from mesh_framework.mesh.proxy import Provider
from mesh_framework.mesh.topology import Resolution, ToolSlots, Topology
from mesh_framework.mesh.unresolved import UnresolvedReasons
from mesh_framework.registry import RegistryStore, build_registry_app

pytestmark = pytest.mark.timeout(30)

SLOT = "app.show:dep_0"
SLOTS = {"show": ToolSlots("app.show", ("caption",))}


def registration(agent_id: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "agent_id": agent_id,
        "name": agent_id[:-2],
        "http_host": "127.0.0.1",
        "http_port": 9000,
        "tools": tools,
    }


class Counted:
    """The registry app, counting the requests of each path; `hide` answers 404 for those paths."""

    def __init__(self, app: Any, hide: tuple[str, ...] = ()) -> None:
        self.app, self.hide = app, hide
        self.seen: list[str] = []

    async def __call__(
        self,
        scope: MutableMapping[str, Any],
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
    ) -> None:
        if scope["type"] == "http":
            self.seen.append(scope["path"])
            if scope["path"] in self.hide:  # as MCP Mesh's registry (gin) answers an unknown route
                await send({"type": "http.response.start", "status": 404, "headers": []})
                await send({"type": "http.response.body", "body": b"404 page not found"})
                return
        await self.app(scope, receive, send)


def mesh(hide: tuple[str, ...] = ()) -> tuple[RegistryStore, Counted]:
    store = RegistryStore()
    store.heartbeat(
        registration("calc-1", [{"function_name": "add", "capability": "caption", "tags": ["slow"]}])
    )
    store.heartbeat(
        registration("calc-2", [{"function_name": "add", "capability": "caption", "tags": ["gpu"]}])
    )
    dependency = {"capability": "caption", "tags": ["fast"]}
    store.heartbeat(
        registration(
            "viewer-1", [{"function_name": "show", "capability": "show", "dependencies": [dependency]}]
        )
    )
    return store, Counted(build_registry_app(store, sweep=False), hide)


@asynccontextmanager
async def viewer_reasons(app: Any) -> AsyncIterator[UnresolvedReasons]:
    """viewer-1's reasons, asking the registry app in process (a fetch only when the set changes)."""
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        reasons = UnresolvedReasons(
            http, lambda: "http://127.0.0.1", "viewer-1", lambda: SLOTS, interval=3600
        )
        try:
            yield reasons
        finally:
            await reasons.stop()


async def settle(reasons: UnresolvedReasons) -> None:
    task = reasons._task  # the fetch the update started
    if task is not None:
        await asyncio.wait_for(task, 5)


async def test_asks_once_per_change_and_at_most_once_per_interval() -> None:
    _, app = mesh()
    async with viewer_reasons(app) as reasons:
        reasons.update(Topology({SLOT: None}))
        await settle(reasons)
        assert reasons.reasons[SLOT] == (
            "no provider of `caption` with tags fast: 2 evicted by tags "
            "(calc-1:add: missing fast; calc-2:add: missing fast)"
        )
        asked = len(app.seen)
        reasons.update(Topology({SLOT: None}))  # the same unresolved set: nothing asked
        reasons.refused()  # within the interval: nothing asked
        await settle(reasons)
        assert len(app.seen) == asked
        reasons.interval = 0
        reasons.refused()  # the interval passed: asked again
        await settle(reasons)
        assert len(app.seen) == asked + 1
        provider = Provider("calc-1", "http://127.0.0.1:9000", "add")
        reasons.update(Topology({SLOT: Resolution("caption", provider)}))  # resolved: the reason goes
        assert reasons.reasons == {}
        await reasons.stop()


async def test_without_explain_the_recorded_events_are_read() -> None:
    _, app = mesh(hide=("/explain",))
    async with viewer_reasons(app) as reasons:
        reasons.update(Topology({SLOT: None}))
        await settle(reasons)
        assert app.seen == ["/explain", "/events"]
        assert reasons.reasons[SLOT].startswith("no provider of `caption` with tags fast: 2 evicted by tags")
        reasons.interval = 0
        reasons.refused()
        await settle(reasons)
        assert app.seen[-1] == "/events"  # no /explain asked again of a registry without it
        await reasons.stop()


async def test_an_unreachable_registry_leaves_no_reason() -> None:
    async with httpx2.AsyncClient() as http:
        reasons = UnresolvedReasons(
            http, lambda: "http://127.0.0.1:9", "viewer-1", lambda: SLOTS, interval=3600
        )
        reasons.update(Topology({SLOT: None}))
        await settle(reasons)
        assert reasons.reasons == {}
        await reasons.stop()


def warnings_and_infos(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    return [
        (r.levelname, r.getMessage())
        for r in caplog.records
        if r.name == "mesh_framework.mesh" and r.levelno >= logging.INFO
    ]


async def test_a_slot_unresolved_while_joining_warns_only_once_the_start_is_settled(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Unresolved at the first registration: INFO (its provider may be joining too); the WARNING comes
    with the heartbeat round after it, once, if the slot is still unresolved."""
    caplog.set_level(logging.DEBUG, logger="mesh_framework.mesh")
    _, app = mesh()
    reason = "no provider of `caption` with tags fast: 2 evicted by tags (calc-1:add: missing fast; calc-2:"
    async with viewer_reasons(app) as reasons:
        reasons.update(Topology({SLOT: None}))  # the first registration's answer
        reasons.heartbeat_round()
        await settle(reasons)
        assert [level for level, _ in warnings_and_infos(caplog)] == ["INFO"]
        assert warnings_and_infos(caplog)[0][1].startswith(
            f"tool 'show': dependency 0 is not resolved yet: {reason}"
        )
        reasons.heartbeat_round()  # a check one interval later found nothing new: still unresolved
        await settle(reasons)
        logged = warnings_and_infos(caplog)
        assert [level for level, _ in logged] == ["INFO", "WARNING"]
        assert logged[1][1].startswith(f"tool 'show': dependency 0 is unresolved: {reason}")
        reasons.interval = 0
        reasons.refused()  # asked again, the same reason: not logged again
        reasons.heartbeat_round()
        await settle(reasons)
        assert len(warnings_and_infos(caplog)) == 2
        await reasons.stop()


async def test_a_slot_resolved_at_the_registry_by_a_provider_that_joined_meanwhile_is_not_warned_of(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The registry picks a provider that registered after the agent's answer: the agent's topology is a
    step behind (its next answer resolves the slot), so nothing is logged as unresolved."""
    caplog.set_level(logging.DEBUG, logger="mesh_framework.mesh")
    store, app = mesh()
    async with viewer_reasons(app) as reasons:
        reasons.update(Topology({SLOT: None}))
        reasons.heartbeat_round()
        await settle(reasons)
        assert [level for level, _ in warnings_and_infos(caplog)] == ["INFO"]
        store.heartbeat(
            registration("calc-3", [{"function_name": "add", "capability": "caption", "tags": ["fast"]}])
        )
        reasons.heartbeat_round()  # unresolved through a round, as the agent holds it
        await settle(reasons)
        assert reasons.reasons[SLOT].startswith("`caption` with tags fast -> calc-3:add")
        assert [level for level, _ in warnings_and_infos(caplog)] == ["INFO"]
        await reasons.stop()


async def test_a_slot_resolved_again_before_the_next_round_is_not_warned_of(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Unresolved, resolved, unresolved again between two rounds (a provider that left and came back, or
    agents stopping together): it has not stayed unresolved through a round."""
    caplog.set_level(logging.INFO, logger="mesh_framework.mesh")
    _, app = mesh()
    provider = Provider("calc-1", "http://127.0.0.1:9000", "add")
    async with viewer_reasons(app) as reasons:
        reasons.update(Topology({SLOT: None}))
        reasons.heartbeat_round()
        reasons.update(Topology({SLOT: Resolution("caption", provider)}))
        reasons.update(Topology({SLOT: None}))
        reasons.heartbeat_round()
        await settle(reasons)
        assert "WARNING" not in [level for level, _ in warnings_and_infos(caplog)]
        reasons.heartbeat_round()  # now it has
        await settle(reasons)
        assert [level for level, _ in warnings_and_infos(caplog)].count("WARNING") == 1
        await reasons.stop()
