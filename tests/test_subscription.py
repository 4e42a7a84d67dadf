"""`TopologySubscription` against a real registry in process: answers, `unknown`, no stream, ordering."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2

from mesh_framework.mesh.subscription import TopologySubscription
from mesh_framework.registry import RegistryServer

from .test_registry_push import consumer, provider

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
