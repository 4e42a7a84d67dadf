"""SQLite persistence of the embedded registry's jobs, in the file that keeps its agents.

A job row is kept as the job API serves it (one JSON document per job, in submission order), its events
one row each. Every change the job API makes is written through (serialized at once, written by the
file's writer thread, `sqlite_writer.py`, off the event loop), so a registry restarted on the same
file serves the same jobs: the owner's lease runs on, and a job whose owner died is claimed again once
the lease expires, as on MCP Mesh's registry.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from typing import Any

from .sqlite_writer import SqliteWriter

__all__ = ["SqliteJobs"]

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS jobs (id TEXT PRIMARY KEY, position INTEGER NOT NULL, job TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS job_events ("
    "job_id TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, PRIMARY KEY (job_id, seq))",
)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


class SqliteJobs:
    """The `jobs` and `job_events` tables, written by the writer of the agents' table (autocommit)."""

    def __init__(self, writer: SqliteWriter) -> None:
        self._writer = writer
        for statement in SCHEMA:
            writer.execute(statement)

    def load(self) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
        """Every stored job with its events, in submission order; rows that no longer decode are skipped."""
        return self._writer.read(_load)

    def save(self, job: dict[str, Any]) -> None:
        """Insert a job (after every other) or replace its row, keeping its place."""
        self._writer.execute(
            "INSERT INTO jobs (id, position, job) "
            "VALUES (?, (SELECT COALESCE(MAX(position), 0) + 1 FROM jobs), ?) "
            "ON CONFLICT (id) DO UPDATE SET job = excluded.job",
            (job["id"], _dumps(job)),
        )

    def save_event(self, event: dict[str, Any]) -> None:
        self._writer.execute(
            "INSERT OR REPLACE INTO job_events (job_id, seq, event) VALUES (?, ?, ?)",
            (event["job_id"], event["seq"], _dumps(event)),
        )

    def delete(self, job_ids: Iterable[str]) -> None:
        """Drop jobs and their events, in one transaction."""
        ids = [(job_id,) for job_id in job_ids]
        self._writer.transaction(
            [("DELETE FROM job_events WHERE job_id = ?", ids), ("DELETE FROM jobs WHERE id = ?", ids)]
        )


def _load(db: sqlite3.Connection) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    events: dict[str, list[dict[str, Any]]] = {}
    for job_id, event in db.execute("SELECT job_id, event FROM job_events ORDER BY job_id, seq"):
        try:
            events.setdefault(job_id, []).append(json.loads(event))
        except ValueError:
            continue
    jobs: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    for job_id, job in db.execute("SELECT id, job FROM jobs ORDER BY position"):
        try:
            decoded = json.loads(job)
        except ValueError:
            continue
        if isinstance(decoded, dict):
            jobs.append((decoded, events.get(job_id, [])))
    return jobs
