"""The embedded registry's SQLite file: written by one writer thread, never on the event loop; what the
registry stored survives a restart, and closing it writes what was still queued."""

from __future__ import annotations

import copy
import logging
import sqlite3
import threading
from pathlib import Path

import httpx2
import pytest

from mesh_framework.registry import RegistryStore, build_registry_app
from mesh_framework.registry.sqlite_writer import SqliteWriter
from tests.registry.test_registry import ADDER, CALC


async def test_registry_writes_run_off_the_event_loop_and_survive_a_restart(tmp_path: Path) -> None:
    database = tmp_path / "registry.db"
    store = RegistryStore(database, timeout=20)
    assert store.database is not None
    statements: list[tuple[int, str]] = []

    def trace(db: sqlite3.Connection) -> None:
        db.set_trace_callback(lambda sql: statements.append((threading.get_ident(), sql)))

    store.database.writer.read(trace)
    writer_thread = store.database.writer.thread.ident
    loop_thread = threading.get_ident()
    app = build_registry_app(store, sweep=False)
    async with httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app), base_url="http://127.0.0.1"
    ) as http:
        assert (await http.post("/heartbeat", json=copy.deepcopy(ADDER))).status_code == 200
        assert (await http.post("/heartbeat", json=copy.deepcopy(CALC))).status_code == 200
        job = (await http.post("/jobs", json={"capability": "add", "submitted_by": "t"})).json()["id"]
        await http.post("/jobs/claim", json={"capability": "add", "instance_id": "adder-0001"})
        await http.post(f"/jobs/{job}/events", json={"type": "note", "payload": {}})
        delta = {"id": job, "claim_epoch": 1, "status": "completed", "result": {"v": 3}}
        assert (await http.post("/jobs/batch", json={"instance_id": "adder-0001", "deltas": [delta]})).json()[
            "accepted"
        ] == 1
        assert (await http.delete("/agents/calc-0001")).status_code == 204
    store.sweep()
    store.close()

    writes = [
        (thread, sql) for thread, sql in statements if sql.lstrip().upper().startswith(("INSERT", "UPDATE"))
    ]
    assert len(writes) >= 6, statements
    assert writer_thread != loop_thread
    assert {thread for thread, _sql in statements} == {writer_thread}  # not one statement on the loop

    again = RegistryStore(database, timeout=20)
    try:
        assert [s.agent_id for s in again.agents()] == ["adder-0001", "calc-0001"]
        assert (
            again.head("adder-0001") == 200 and again.head("calc-0001") == 410
        )  # deleted before the restart
        app = build_registry_app(again, sweep=False)
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            row = (await http.get(f"/jobs/{job}")).json()
            assert row["status"] == "completed" and row["result"] == {"v": 3}
            assert [e["type"] for e in (await http.get(f"/jobs/{job}/events")).json()["events"]] == ["note"]
    finally:
        again.close()


def test_closing_writes_every_queued_write_in_order(tmp_path: Path) -> None:
    database = str(tmp_path / "queue.db")
    writer = SqliteWriter(database)
    gate = threading.Event()
    writer.execute("CREATE TABLE t (n INTEGER)")
    writer.write(lambda _db: gate.wait(10))  # holds the writer: everything after it stays queued
    for n in range(50):
        writer.execute("INSERT INTO t VALUES (?)", (n,))
    writer.execute("DELETE FROM t WHERE n < 10")  # runs after the inserts, or nothing would be left over
    gate.set()
    writer.close()
    with sqlite3.connect(database) as db:
        assert [n for (n,) in db.execute("SELECT n FROM t ORDER BY rowid")] == list(range(10, 50))


def test_a_read_sees_every_write_queued_before_it(tmp_path: Path) -> None:
    writer = SqliteWriter(str(tmp_path / "read.db"))
    try:
        writer.execute("CREATE TABLE t (n INTEGER)")
        for n in range(50):
            writer.execute("INSERT INTO t VALUES (?)", (n,))
        assert writer.read(lambda db: db.execute("SELECT COUNT(*) FROM t").fetchone()[0]) == 50
    finally:
        writer.close()


def test_a_failed_write_is_logged_on_one_line_and_the_next_writes_go_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    writer = SqliteWriter(str(tmp_path / "fail.db"))
    with caplog.at_level(logging.WARNING, "mesh_framework.registry"):
        writer.execute("INSERT INTO missing VALUES (1)")
        writer.execute("CREATE TABLE t (n INTEGER)")
        writer.execute("INSERT INTO t VALUES (1)")
        assert writer.read(lambda db: db.execute("SELECT n FROM t").fetchall()) == [(1,)]
    writer.close()
    failures = [r.getMessage() for r in caplog.records if "a write failed" in r.getMessage()]
    assert len(failures) == 1 and "no such table: missing" in failures[0] and "\n" not in failures[0]
