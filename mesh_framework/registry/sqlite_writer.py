"""`SqliteWriter`: one thread owns the registry's SQLite connection, so no disk write runs on the event loop.

Writes are queued and run in the order they were queued, off the loop; the caller never waits for them.
`read(fn)` runs after every write queued before it and returns its value, so a read sees every earlier
write. `flush()` waits until the writes queued so far are done; `close()` flushes and closes the file. A
write that fails is logged on one line (traceback at DEBUG) and the writes after it go on.
"""

from __future__ import annotations

import logging
import queue
import sqlite3
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar

__all__ = ["SqliteWriter"]

logger = logging.getLogger("mesh_framework.registry")

T = TypeVar("T")
_Task = Callable[[sqlite3.Connection], Any]
_Item = tuple[_Task, "Future[Any] | None"]


class SqliteWriter:
    """The connection to one SQLite file (autocommit), used from its own thread only.

    Usage:

        writer = SqliteWriter("registry.db")
        writer.execute("INSERT INTO t VALUES (?)", (1,))       # queued; returns at once
        rows = writer.read(lambda db: db.execute("SELECT * FROM t").fetchall())  # sees the insert
        writer.close()                                         # pending writes first
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self._queue: queue.SimpleQueue[_Item | None] = queue.SimpleQueue()
        opened: Future[None] = Future()
        self._thread = threading.Thread(
            target=_serve, args=(path, self._queue, opened), name=f"sqlite-writer {path}", daemon=True
        )
        self._thread.start()
        opened.result()  # a file that cannot be opened fails here, in the caller
        self._closed = False
        # A writer dropped without close() still finishes its queue and closes the file.
        self._finalizer = weakref.finalize(self, self._queue.put, None)

    @property
    def thread(self) -> threading.Thread:
        """The thread every statement runs on."""
        return self._thread

    def write(self, task: _Task) -> None:
        """Queue `task(connection)`; it runs after every task queued before it."""
        if self._closed:
            raise RuntimeError(f"the registry database {self.path} is closed")
        self._queue.put((task, None))

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> None:
        """Queue one statement."""
        self.write(lambda db: db.execute(sql, parameters))

    def transaction(self, statements: Iterable[tuple[str, Sequence[Sequence[Any]]]]) -> None:
        """Queue statements, each with its rows of parameters, to run in one transaction."""
        batch = [(sql, list(rows)) for sql, rows in statements]

        def run(db: sqlite3.Connection) -> None:
            with db:
                db.execute("BEGIN")
                for sql, rows in batch:
                    db.executemany(sql, rows)

        self.write(run)

    def read(self, task: Callable[[sqlite3.Connection], T]) -> T:
        """Run `task(connection)` after every queued write and return its value (blocks the caller)."""
        if self._closed:
            raise RuntimeError(f"the registry database {self.path} is closed")
        done: Future[T] = Future()
        self._queue.put((task, done))
        return done.result()

    def flush(self) -> None:
        """Wait until every write queued so far has run."""
        if not self._closed:
            self.read(lambda _db: None)

    def close(self) -> None:
        """Run the pending writes, then close the file."""
        if self._closed:
            return
        self._closed = True
        self._finalizer.detach()
        self._queue.put(None)
        self._thread.join()


def _serve(path: str, tasks: queue.SimpleQueue[_Item | None], opened: Future[None]) -> None:
    try:
        db = sqlite3.connect(path, isolation_level=None)
    except BaseException as exc:
        opened.set_exception(exc)
        return
    opened.set_result(None)
    try:
        while (item := tasks.get()) is not None:
            task, done = item
            try:
                value = task(db)
            except Exception as exc:
                if done is not None:
                    done.set_exception(exc)
                    continue
                logger.warning("registry database %s: a write failed: %s", path, exc)
                logger.debug("registry database write failed", exc_info=True)
            else:
                if done is not None:
                    done.set_result(value)
    finally:
        db.close()
