"""Health indicators, their cached verdict and the probe endpoints, in process.

The monitor's bounds (cache TTL, timeout) are exercised with checks that count their runs or block on an
event; nothing here asserts a duration.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import httpx2
import pytest

from mesh_framework import Health, HealthStatus, MeshApplication
from mesh_framework.health import HealthMonitor, NamedIndicator, aggregate, to_health
from mesh_framework.mesh.heartbeat import Heartbeat, RegistryClient
from mesh_framework.registry import start_registry
from mesh_framework.registry.store import RegistryStore
from mesh_framework.testing import mesh_client

UP, DEGRADED, DOWN = HealthStatus.UP, HealthStatus.DEGRADED, HealthStatus.DOWN


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        (None, UP),
        (True, UP),
        (False, DOWN),
        ("up", UP),
        ("DEGRADED", DEGRADED),
        ("unhealthy", DOWN),  # MCP Mesh's words
        ("healthy", UP),
        ({"status": "unhealthy", "checks": {"db": False}}, DOWN),
        (DEGRADED, DEGRADED),
        (Health.down(reason="x"), DOWN),
        ("sideways", DOWN),  # unreadable: DOWN with a reason
        (42, DOWN),
    ],
)
def test_every_kind_of_answer_is_read(answer: Any, status: HealthStatus) -> None:
    assert to_health(answer).status is status


def test_unreadable_answers_say_why() -> None:
    assert "unknown health status 'sideways'" in to_health("sideways").details["error"]
    assert "returned int" in to_health(42).details["error"]
    assert to_health({"status": "down", "checks": {"db": False}}).details == {"checks": {"db": False}}


def test_the_worst_status_wins() -> None:
    assert aggregate([]) is UP
    assert aggregate([UP, DEGRADED, UP]) is DEGRADED
    assert aggregate([DEGRADED, DOWN, UP]) is DOWN
    assert UP.mesh_status == "healthy" and DOWN.mesh_status == "unhealthy"


async def test_the_verdict_is_cached_for_the_ttl_and_rounds_are_shared() -> None:
    runs = 0

    async def counted() -> bool:
        nonlocal runs
        runs += 1
        await asyncio.sleep(0)
        return True

    monitor = HealthMonitor([NamedIndicator("counted", counted)], cache_ttl=3600, timeout=5)
    assert monitor.fresh is False
    reports = await asyncio.gather(*(monitor.check() for _ in range(5)))
    assert runs == 1 and {r.status for r in reports} == {UP}
    await monitor.check()
    assert runs == 1  # cached
    await monitor.refresh()
    assert runs == 2


async def test_a_raising_check_is_down_with_its_reason() -> None:
    def broken() -> None:
        raise ConnectionError("database refused")

    monitor = HealthMonitor([NamedIndicator("db", broken), NamedIndicator("ok", lambda: True)])
    report = await monitor.check()
    assert report.status is DOWN
    assert report.components["db"].details == {"error": "ConnectionError: database refused"}
    assert report.components["ok"].status is UP


async def test_a_hanging_sync_check_is_down_after_the_timeout_and_never_runs_twice() -> None:
    release = threading.Event()
    runs = 0

    def hangs() -> bool:
        nonlocal runs
        runs += 1
        release.wait(30)
        return True

    monitor = HealthMonitor([NamedIndicator("hangs", hangs)], cache_ttl=3600, timeout=0.2)
    first = await monitor.refresh()
    assert first.status is DOWN and "no answer within 0.2s" in first.components["hangs"].details["error"]
    assert monitor.status is DOWN  # readers get the cached verdict at once
    second = await monitor.refresh()
    assert "still running" in second.components["hangs"].details["error"]
    assert runs == 1
    release.set()
    await asyncio.to_thread(lambda: None)  # let the thread's result reach the loop
    for _ in range(100):  # bounded: the finished thread is seen within a few loop turns
        if (await monitor.refresh()).status is UP:
            break
        await asyncio.sleep(0.01)
    assert monitor.status is UP and runs == 2


async def test_a_hanging_async_check_is_cancelled_and_down() -> None:
    cancelled = asyncio.Event()

    async def hangs() -> bool:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return True

    monitor = HealthMonitor([NamedIndicator("hangs", hangs)], timeout=0.1)
    assert (await monitor.refresh()).status is DOWN
    await asyncio.wait_for(cancelled.wait(), 5)


async def test_listeners_hear_each_change_once() -> None:
    state = {"value": True}
    heard: list[HealthStatus] = []
    monitor = HealthMonitor([NamedIndicator("flip", lambda: state["value"])], cache_ttl=3600)
    monitor.add_listener(heard.append)
    monitor.add_listener(heard.append)  # the same listener twice is one listener
    await monitor.refresh()
    state["value"] = False
    await monitor.refresh()
    await monitor.refresh()
    state["value"] = True
    await monitor.refresh()
    assert heard == [DOWN, UP]


# -- the endpoints of an agent ------------------------------------------------------------------------


def load(tmp_path: Path, word: str, monkeypatch: pytest.MonkeyPatch, **env: str) -> MeshApplication:
    flag = tmp_path / "health"
    flag.write_text(word)
    monkeypatch.setenv("HEALTH_FILE", str(flag))
    return MeshApplication.load("tests.apps.health_app", environ=env)


async def test_every_kind_of_indicator_is_found_and_details_are_hidden_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with mesh_client(load(tmp_path, "UP", monkeypatch)) as client:
        hidden = await client.http.get("/health")
    assert hidden.status_code == 200
    assert hidden.json()["status"] == "UP" and "components" not in hidden.json()
    app = load(tmp_path, "DEGRADED", monkeypatch, MESH_HEALTH__SHOW_DETAILS="always")
    async with mesh_client(app) as client:
        shown = await client.http.get("/health")
    assert shown.status_code == 200  # DEGRADED still serves
    body = shown.json()
    assert body["status"] == "DEGRADED"
    assert body["components"] == {
        "health_check": {"status": "DEGRADED"},  # @mesh_agent(health_check=...)
        "disk": {"status": "UP", "details": {"free_mb": 1024}},  # @health_indicator function
        "pool": {"status": "UP"},  # @health_indicator("pool") on a component method
        "cache": {"status": "UP", "details": {"entries": 3}},  # a HealthIndicator component
    }


@pytest.mark.parametrize("word", ["DOWN", "RAISE"])
async def test_down_is_503_on_health_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, word: str) -> None:
    app = load(tmp_path, word, monkeypatch, MESH_HEALTH__SHOW_DETAILS="always")
    async with mesh_client(app) as client:
        health = await client.http.get("/health")
        probes = {p: (await client.http.get(p)).status_code for p in ("/livez", "/ready", "/startupz")}
        assert await client.call_ok("add", {"a": 2, "b": 3}) == 5  # a DOWN agent still answers
    assert health.status_code == 503 and health.json()["status"] == "DOWN"
    if word == "RAISE":
        assert health.json()["components"]["health_check"]["details"] == {
            "error": "RuntimeError: the database is gone"
        }
    # Liveness and readiness ignore the verdict (MCP Mesh's rule): withdrawal goes through the registry.
    assert probes == {"/livez": 200, "/ready": 200, "/startupz": 200}


# -- the embedded registry reads the heartbeat's status -----------------------------------------------


def registration(agent_id: str, status: str | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "agent_id": agent_id,
        "name": agent_id.rsplit("-", 1)[0],
        "http_host": "127.0.0.1",
        "http_port": 9,
        "tools": [{"function_name": "add", "capability": "add", "version": "1.0.0"}],
        **extra,
    }
    if status is not None:
        body["status"] = status
    return body


def test_the_registry_stops_offering_an_agent_that_reports_unhealthy() -> None:
    store = RegistryStore()
    consumer = {
        "agent_id": "calc-00000001",
        "name": "calc",
        "http_host": "127.0.0.1",
        "http_port": 8,
        "tools": [{"function_name": "calc", "capability": "calc", "dependencies": [{"capability": "add"}]}],
    }

    def chosen() -> str:
        return str(store.heartbeat(consumer).answer["dependencies_resolved"]["calc"][0]["agent_id"])

    store.heartbeat(registration("adder-00000001", "healthy"))
    assert chosen() == "adder-00000001"
    store.heartbeat(registration("adder-00000001", "unhealthy"))
    assert chosen() == ""  # unresolved: nobody else provides add
    assert store.head("adder-00000001") == 410
    assert not store.get("adder-00000001").healthy  # type: ignore[union-attr]
    store.heartbeat(registration("adder-00000001", "unhealthy"))  # staying DOWN does not revive it
    assert chosen() == ""
    store.heartbeat(registration("adder-00000001", "degraded"))  # degraded serves (MCP Mesh's rule)
    assert chosen() == "adder-00000001"
    store.heartbeat(registration("adder-00000002", "unhealthy"))  # registered DOWN: never offered
    store.heartbeat(registration("adder-00000001", "unhealthy"))
    assert chosen() == ""


async def test_the_heartbeat_reports_down_pauses_and_registers_again_when_up() -> None:
    registry = await start_registry("127.0.0.1", 0)
    kinds: list[str] = []
    try:
        async with httpx2.AsyncClient(trust_env=False, timeout=5) as http:

            async def status() -> str:
                listed = (await http.get(registry.url + "/agents")).json()["agents"]
                return str(listed[0]["status"]) if listed else ""

            async def until(expected: str) -> None:
                for _ in range(200):  # bounded
                    if await status() == expected:
                        return
                    await asyncio.sleep(0.02)
                raise AssertionError(f"the registry never listed the agent {expected}")

            heartbeat = Heartbeat(
                RegistryClient(http, registry.url, 5),
                registration("adder-00000009", "healthy"),
                interval=0.05,
                on_answer=lambda _answer: None,
            )
            heartbeat.observer = lambda kind, _seconds, failed: kinds.append(kind + ("!" if failed else ""))
            heartbeat.start()
            await until("healthy")
            for _ in range(200):  # bounded: the heartbeat HEADs while healthy
                if "check" in kinds:
                    break
                await asyncio.sleep(0.02)
            heartbeat.set_health("unhealthy")
            await until("unhealthy")
            assert heartbeat.withdrawn
            heartbeat.update_payload(registration("adder-00000009", "healthy"))  # tools changed meanwhile
            heartbeat.set_health("healthy")
            await until("healthy")
            await heartbeat.stop(unregister=True)
            assert await status() == "unhealthy"  # DELETE on stop
    finally:
        await registry.stop()
    down = kinds.index("unregister")
    back = kinds.index("register", down)
    # Withdrawn: a POST saying unhealthy, a DELETE, then nothing (paused) until UP re-registers.
    assert kinds[down - 1] == "register"
    assert kinds[down + 1 : back].count("check") == 0
    assert "check" in kinds[:down] and not any(k.endswith("!") for k in kinds)


def test_a_health_check_that_is_not_callable_is_refused_at_once() -> None:
    from mesh_framework import mesh_agent

    with pytest.raises(
        TypeError, match=r"health_check=\.\.\.\) takes a function without arguments, not 'db'"
    ):
        mesh_agent("x", health_check="db")  # type: ignore[arg-type]


def test_a_health_method_with_arguments_is_not_an_indicator() -> None:
    from mesh_framework.health import collect_indicators

    class Clinic:
        def health(self, patient: str) -> str:  # some other meaning of "health"
            return patient

    class DiskSpaceHealthIndicator:
        def health(self, verbose: bool = False) -> bool:
            return True

    found = collect_indicators([], [Clinic(), DiskSpaceHealthIndicator()])
    assert [i.name for i in found] == ["diskSpace"]


def test_an_indicator_that_needs_arguments_fails_start_up_naming_it() -> None:
    from mesh_framework import WiringError, health_indicator
    from mesh_framework.health import collect_indicators

    class Pool:
        @health_indicator("pool")
        def check(self, timeout: float) -> bool:
            return timeout > 0

    with pytest.raises(WiringError, match=r"Pool.check: @health_indicator 'pool' needs arguments"):
        collect_indicators([], [Pool()])
