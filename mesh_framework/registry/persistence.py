"""SQLite persistence of the embedded registry (stdlib `sqlite3`): one row per agent.

A row keeps the heartbeat payload as received, the health flag, timestamps and the last answer sent to
the agent, which is what lets a restarted registry tell its agents "nothing changed" (see `store.py`).
Rows are written only when something changes, never on a plain refresh, and by the file's writer thread
(`sqlite_writer.py`): a write is queued (its values serialized at once) and the event loop goes on.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .._frozen import frozen
from .sqlite_writer import SqliteWriter

__all__ = ["SqliteAgents", "StoredAgent"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS agents (
    agent_id   TEXT PRIMARY KEY,
    payload    TEXT NOT NULL,
    healthy    INTEGER NOT NULL,
    created_at REAL NOT NULL,
    last_seen  REAL NOT NULL,
    answer     TEXT
)
"""


@frozen
class StoredAgent:
    """One agent as the database remembers it (wall-clock timestamps)."""

    agent_id: str
    payload: dict[str, Any]
    healthy: bool
    created_at: float
    last_seen: float
    answer: dict[str, Any] | None


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


class SqliteAgents:
    """The `agents` table of one SQLite file; autocommit, WAL, written by one writer thread."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.writer = SqliteWriter(self.path)
        try:
            self.writer.read(_create)  # here, so a file that is no database fails the caller
        except BaseException:
            self.writer.close()
            raise

    def load(self) -> list[StoredAgent]:
        """Every stored agent, oldest first; rows that no longer decode are skipped."""
        rows = self.writer.read(
            lambda db: db.execute(
                "SELECT agent_id, payload, healthy, created_at, last_seen, answer FROM agents "
                "ORDER BY created_at"
            ).fetchall()
        )
        agents: list[StoredAgent] = []
        for agent_id, payload, healthy, created_at, last_seen, answer in rows:
            try:
                decoded = json.loads(payload)
                sent = json.loads(answer) if answer else None
            except ValueError:
                continue
            agents.append(StoredAgent(agent_id, decoded, bool(healthy), created_at, last_seen, sent))
        return agents

    def save(
        self,
        agent_id: str,
        payload: dict[str, Any],
        *,
        healthy: bool,
        created_at: float,
        last_seen: float,
        answer: dict[str, Any] | None,
    ) -> None:
        self.writer.execute(
            "INSERT OR REPLACE INTO agents (agent_id, payload, healthy, created_at, last_seen, answer) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (agent_id, _dumps(payload), int(healthy), created_at, last_seen, _dumps(answer)),
        )

    def save_answer(self, agent_id: str, answer: dict[str, Any], last_seen: float) -> None:
        self.writer.execute(
            "UPDATE agents SET answer = ?, last_seen = ? WHERE agent_id = ?",
            (_dumps(answer), last_seen, agent_id),
        )

    def save_health(self, agent_id: str, healthy: bool, last_seen: float) -> None:
        self.writer.execute(
            "UPDATE agents SET healthy = ?, last_seen = ? WHERE agent_id = ?",
            (int(healthy), last_seen, agent_id),
        )

    def touch(self, seen: Iterable[tuple[str, float]]) -> None:
        """Record last-seen times in one transaction."""
        self.writer.transaction(
            [("UPDATE agents SET last_seen = ? WHERE agent_id = ?", [(t, a) for a, t in seen])]
        )

    def delete(self, agent_id: str) -> None:
        self.writer.execute("DELETE FROM agents WHERE agent_id = ?", (agent_id,))

    def flush(self) -> None:
        """Wait until every queued write is in the file."""
        self.writer.flush()

    def close(self) -> None:
        """Write what is queued, then close the file."""
        self.writer.close()


def _create(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute(SCHEMA)
