"""An agent that stops while its registration is on its way: the registry must not take it back after the
goodbye. A registry may apply a POST /heartbeat whose caller stopped waiting for it; applied after the
DELETE, it brought the leaving agent back (healthy, offered to others) until the registry's timeout."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import httpx2
import pytest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mesh_framework.mesh.heartbeat import Heartbeat, RegistryClient
from mesh_framework.mesh.http_pool import build_http_client
from mesh_framework.registry.registry_app import build_registry_app
from mesh_framework.registry.store import RegistryStore
from tests.mesh.test_keepalive import _serve
from tests.registry.test_registry import ADDER

pytestmark = pytest.mark.timeout(30)

# How long the held registration waits for a DELETE that, once fixed, never comes first. A DELETE sent at
# once arrives in milliseconds; a slower one would only let the old behaviour pass, never fail the new.
DELETE_GRACE = 1.0


class HeldRegistrations:
    """ASGI middleware: while `hold` is set, a POST /heartbeat waits (for a DELETE, or `DELETE_GRACE`)
    before the registry applies it; every request's method is recorded once the registry has handled it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.hold = False
        self.held = asyncio.Event()
        self.held_done = asyncio.Event()  # the held registration went through the registry
        self.deleted = asyncio.Event()
        self.applied: list[str] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(("/heartbeat", "/agents/")):
            method = scope["method"]
            if method == "POST" and self.hold:
                receive = await self._received(receive)  # the whole request is in, as a busy server has it
                self.held.set()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.deleted.wait(), DELETE_GRACE)
            elif method == "DELETE":
                self.deleted.set()
            await self.app(scope, receive, send)
            self.applied.append(method)
            if method == "POST" and self.hold:
                self.held_done.set()
            return
        await self.app(scope, receive, send)

    @staticmethod
    async def _received(receive: Receive) -> Receive:
        """The request's body read now, handed to the app later even if the client has gone meanwhile."""
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)

        async def replay() -> Message:
            return {"type": "http.request", "body": body, "more_body": False}

        return replay


@pytest.fixture
async def registry() -> AsyncIterator[tuple[str, RegistryStore, HeldRegistrations]]:
    store = RegistryStore(None)
    gate = HeldRegistrations(build_registry_app(store))
    async for url in _serve(gate, 5.0):  # type: ignore[arg-type]
        yield url, store, gate
    store.close()


async def test_a_registration_on_its_way_is_answered_before_the_agent_unregisters(
    registry: tuple[str, RegistryStore, HeldRegistrations],
) -> None:
    url, store, gate = registry
    async with build_http_client() as http:
        client = RegistryClient(http, url, timeout=5.0)
        heartbeat = Heartbeat(client, dict(ADDER), interval=60, on_answer=lambda _answer: None)
        heartbeat.start()
        await asyncio.wait_for(heartbeat.registered.wait(), 10)
        gate.hold = True
        heartbeat.update_payload({**ADDER, "version": "2"})  # a registration now, held by the registry
        await asyncio.wait_for(gate.held.wait(), 10)
        await heartbeat.stop(unregister=True)
        await asyncio.wait_for(gate.held_done.wait(), 10)  # however late the registry applies it
    state = store.get(str(ADDER["agent_id"]))
    assert state is not None and not state.healthy, "the agent was taken back after it unregistered"
    assert gate.applied[-2:] == ["POST", "DELETE"]


async def test_a_check_cut_short_by_stop_is_not_counted_as_a_failed_registry_call() -> None:
    """Stopping cancels a check in flight; the registry did not fail, so the timing observer (the registry
    call metrics) hears of no failed call."""
    check_sent = asyncio.Event()

    async def answer(request: httpx2.Request) -> httpx2.Response:
        if request.method == "HEAD":
            check_sent.set()
            await asyncio.Event().wait()  # never answers: the stop cancels it
        return httpx2.Response(200, json={"status": "success", "dependencies_resolved": {}})

    observed: list[tuple[str, bool]] = []
    async with httpx2.AsyncClient(transport=httpx2.MockTransport(answer)) as http:
        heartbeat = Heartbeat(
            RegistryClient(http, "http://registry.test", 5),
            dict(ADDER),
            interval=0.01,
            on_answer=lambda _answer: None,
        )
        heartbeat.observer = lambda kind, _seconds, failed: observed.append((kind, failed))
        heartbeat.start()
        await asyncio.wait_for(check_sent.wait(), 10)
        await heartbeat.stop(unregister=False)
    assert observed == [("register", False)]
