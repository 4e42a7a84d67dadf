"""`TopologySubscription` against a real registry in process: answers, `unknown`, no stream, ordering."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx2
import pytest

from mesh_framework import MeshApplication
from mesh_framework.mesh.subscription import TopologySubscription
from mesh_framework.registry import RegistryServer

from ..registry.test_registry_push import consumer, provider

STEP = 5.0


def ignore(_answer: dict[str, Any]) -> None:
    pass


async def until(predicate: Any) -> None:
    async with asyncio.timeout(STEP):
        while not predicate():
            await asyncio.sleep(0.01)


async def test_answers_arrive_and_older_heartbeat_answers_are_outdated() -> None:
    answers: list[dict[str, Any]] = []
    unknown: list[bool] = []
    async with RegistryServer("127.0.0.1", 0, timeout=60) as server, httpx2.AsyncClient() as http:
        (await http.post(server.url + "/heartbeat", json=consumer())).raise_for_status()
        subscription = TopologySubscription(
            http,
            lambda: server.url,
            "calc-00000001",
            on_answer=answers.append,
            on_unknown=lambda: unknown.append(True),
        )
        subscription.start()
        try:
            await until(lambda: answers)
            old = (await http.post(server.url + "/heartbeat", json=consumer())).json()
            (
                await http.post(server.url + "/heartbeat", json=provider("adder-00000001", 9001))
            ).raise_for_status()
            await until(lambda: len(answers) >= 2)
            assert answers[-1]["dependencies_resolved"]["calc"][0]["agent_id"] == "adder-00000001"
            assert subscription.outdated(old) is True  # computed before the pushed answer
            assert subscription.outdated(answers[-1]) is False
            assert subscription.supported is True and unknown == []
        finally:
            await subscription.stop()


async def test_an_unknown_agent_is_asked_to_register_and_a_registry_without_stream_ends_it() -> None:
    unknown: list[bool] = []
    async with RegistryServer("127.0.0.1", 0, timeout=60) as server, httpx2.AsyncClient() as http:
        subscription = TopologySubscription(
            http,
            lambda: server.url,
            "ghost-00000001",
            on_answer=print,
            on_unknown=lambda: unknown.append(True),
        )
        subscription.start()
        try:
            await until(lambda: unknown)
        finally:
            await subscription.stop()
        elsewhere = TopologySubscription(
            http, lambda: server.url + "/nowhere", "calc-00000001", on_answer=ignore, on_unknown=lambda: None
        )
        elsewhere.start()
        try:
            await until(lambda: elsewhere.supported is False)
        finally:
            await elsewhere.stop()


async def test_an_agent_the_registry_forgot_registers_again_and_says_so_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The registry restarts empty on the same port within one heartbeat: the topology stream is the first
    to notice (`unknown`), the heartbeat registers again and logs one line for the event."""
    first = RegistryServer("127.0.0.1", 0, timeout=60)
    await first.start()
    port, url = first.port, first.url
    assert port is not None
    environ = {"MCP_MESH_REGISTRY_URL": url, "MCP_MESH_HEALTH_INTERVAL": "30"}  # no HEAD during the test
    app = MeshApplication.load("starter_app.calculator", environ=environ)
    app.build()
    runtime = app.container.mesh_runtime()
    second: RegistryServer | None = None
    try:
        await runtime.start(9100)
        heartbeat, subscription = runtime.heartbeat, runtime.subscription
        assert heartbeat is not None and subscription is not None
        async with asyncio.timeout(STEP):
            await heartbeat.registered.wait()
            await subscription.connected.wait()
        caplog.set_level(logging.INFO, "mesh_framework.mesh")
        await first.stop()
        second = RegistryServer("127.0.0.1", port, timeout=60)  # without the first one's data
        await second.start()
        async with asyncio.timeout(STEP):
            await heartbeat.registered_again.wait()
        assert [a.registration.agent_id for a in second.store.agents()] == [heartbeat.agent_id]
    finally:
        await runtime.stop()
        await first.stop()
        if second is not None:
            await second.stop()
    again = [r.getMessage() for r in caplog.records if "again" in r.getMessage()]
    assert again == [f"registry {url} no longer knew agent {heartbeat.agent_id}: registered again"]
