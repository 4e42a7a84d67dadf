"""`@status_section` functions refreshed in the background and served at `GET /status`."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from mesh_framework import MeshApplication, status_section
from mesh_framework.status import StatusBoard, StatusSection
from mesh_framework.testing.client import SyncMeshClient


@pytest.fixture(scope="module")
def http() -> Iterator[Any]:
    client = SyncMeshClient(MeshApplication.load("tests.apps.click_app", environ={}))
    yield client._http()
    client.close()


def test_all_sections_with_secrets_masked(http: Any) -> None:
    response = http.get("/status")
    assert response.status_code == 200
    body = response.json()
    assert body["agent"] == "click-ops"
    assert set(body["sections"]) == {"cluster", "broken"}
    cluster = body["sections"]["cluster"]
    assert cluster["data"]["admin"] == {"user": "ops", "password": "******"}
    assert cluster["data"]["nodes"] == 3
    assert cluster["error"] is None
    assert cluster["refresh_seconds"] == 3600
    assert cluster["refreshed_at"].endswith("+00:00")


def test_one_section_and_live_refresh(http: Any) -> None:
    first = http.get("/status", params={"section": "cluster"}).json()
    again = http.get("/status", params={"section": "cluster"}).json()
    assert again["data"]["reads"] == first["data"]["reads"]  # served from the last refresh
    live = http.get("/status", params={"section": "cluster", "live": "true"}).json()
    assert live["name"] == "cluster"
    assert live["data"]["reads"] > first["data"]["reads"]  # refreshed for this request


def test_a_failing_section_reports_its_error(http: Any) -> None:
    broken = http.get("/status", params={"section": "broken", "live": "true"}).json()
    assert broken["data"] is None
    assert broken["error"].startswith("RuntimeError: probe failed")


def test_bad_queries_answer_one_clear_line(http: Any) -> None:
    missing = http.get("/status", params={"section": "nope"})
    assert missing.status_code == 404
    assert missing.json() == {"error": "no status section 'nope' (sections: cluster, broken)"}
    bad = http.get("/status", params={"live": "maybe"})
    assert bad.status_code == 400
    assert "live='maybe' is not a boolean" in bad.json()["error"]


def test_sections_refresh_in_the_background() -> None:
    calls: list[int] = []

    async def scenario() -> dict[str, Any]:
        board = StatusBoard([StatusSection("ticks", lambda: calls.append(1) or len(calls), refresh=0.01)])
        board.start()
        try:
            for _ in range(500):  # bounded: until the loop has refreshed a few times by itself
                if len(calls) >= 3:
                    break
                await asyncio.sleep(0.01)
            return await board.snapshot("ticks")
        finally:
            await board.aclose()

    snapshot = asyncio.run(scenario())
    assert len(calls) >= 3
    assert snapshot["data"] >= 3


def test_a_slow_section_times_out_at_its_refresh_interval() -> None:
    async def slow() -> int:
        await asyncio.sleep(5)
        return 1

    async def scenario() -> dict[str, Any]:
        board = StatusBoard([StatusSection("slow", slow, refresh=0.05)])
        return await board.snapshot("slow")

    snapshot = asyncio.run(scenario())
    assert snapshot["error"] == "status section 'slow' did not answer within 0.05s"


@pytest.mark.parametrize(("kwargs", "message"), [({"name": "a b"}, "invalid"), ({"refresh": 0}, "positive")])
def test_status_section_refuses_bad_parameters(kwargs: dict[str, Any], message: str) -> None:
    arguments = {"name": "ok", **kwargs}
    with pytest.raises(ValueError, match=message):
        status_section(arguments.pop("name"), **arguments)


def test_closing_the_board_stops_a_refresh_in_flight() -> None:
    async def slow() -> str:
        await asyncio.sleep(5)
        return "late"

    async def scenario() -> bool:
        board = StatusBoard([StatusSection("slow", slow, refresh=10)])
        board.start()
        await asyncio.sleep(0)  # the first refresh is in flight
        running = board.sections["slow"]._running
        assert running is not None and not running.done()
        await board.aclose()
        return running.cancelled()  # not left to finish on a loop that may be gone

    assert asyncio.run(scenario()) is True
