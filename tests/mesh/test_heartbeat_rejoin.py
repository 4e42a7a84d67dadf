"""A registry that restarts without its data: each agent registers again at its next heartbeat, so the first
to do so hears of a mesh the others have not rejoined yet. It keeps the topology it holds while the answers
would drop part of it, for a few rounds (REJOIN_ROUNDS), rather than dropping its providers until they
register again."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from mesh_framework.mesh.heartbeat import REJOIN_ROUNDS, Heartbeat, RegistryClient
from mesh_framework.registry import start_registry
from tests.registry.test_registry import ADDER, CALC

pytestmark = pytest.mark.timeout(30)

INTERVAL = 0.1


def resolves_add(answer: dict[str, Any]) -> bool:
    entries = (answer.get("dependencies_resolved") or {}).get("calc") or []
    return bool(entries and isinstance(entries[0], dict) and entries[0].get("agent_id") == "adder-0001")


async def until(condition: Callable[[], bool], what: str) -> None:
    for _ in range(500):  # bounded: 10 s
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"never: {what}")


async def test_an_agent_that_registers_first_after_a_data_loss_keeps_its_providers_until_they_are_back() -> (
    None
):
    registry = await start_registry("127.0.0.1", 0)
    port = int(registry.url.rsplit(":", 1)[1])
    applied: list[dict[str, Any]] = []
    async with httpx2.AsyncClient(trust_env=False, timeout=5) as http:
        client = RegistryClient(http, registry.url, 5)
        await client.register(dict(ADDER))
        consumer = Heartbeat(client, dict(CALC), interval=INTERVAL, on_answer=applied.append)
        consumer.holds = lambda answer: not resolves_add(answer)  # what the runtime asks: a provider lost
        consumer.start()
        try:
            await until(lambda: bool(applied) and resolves_add(applied[-1]), "the consumer resolved add")
            held = len(applied)
            await registry.stop()
            registry = await start_registry("127.0.0.1", port)  # the same address, nothing it knew
            await until(lambda: consumer.rejoining == REJOIN_ROUNDS - 2, "two answers without add held")
            await client.register(dict(ADDER))  # the provider is back, more than one interval later
            await until(lambda: len(applied) > held, "an answer applied after registering again")
        finally:
            await consumer.stop(unregister=False)
            await registry.stop()
    assert applied and all(resolves_add(answer) for answer in applied), [
        answer.get("dependencies_resolved") for answer in applied
    ]


async def test_without_a_comparison_the_first_answer_after_registering_again_is_held_once() -> None:
    """A heartbeat told nothing of its topology (`holds` None) holds one answer, then applies the next."""
    registry = await start_registry("127.0.0.1", 0)
    port = int(registry.url.rsplit(":", 1)[1])
    applied: list[dict[str, Any]] = []
    registers = 0

    def observe(kind: str, _seconds: float, failed: bool) -> None:
        nonlocal registers
        registers += kind == "register" and not failed

    async with httpx2.AsyncClient(trust_env=False, timeout=5) as http:
        client = RegistryClient(http, registry.url, 5)
        consumer = Heartbeat(client, dict(CALC), interval=INTERVAL, on_answer=applied.append)
        consumer.observer = observe
        consumer.start()
        try:
            await until(lambda: len(applied) == 1, "the first answer applied")
            before = registers
            await registry.stop()
            registry = await start_registry("127.0.0.1", port)
            await until(lambda: len(applied) == 2, "an answer applied after registering again")
        finally:
            await consumer.stop(unregister=False)
            await registry.stop()
    assert registers - before >= 2  # the first answer after registering again was held: one more round
