"""Sync tool bodies in worker threads, handed off at less cost than `asyncio.to_thread`.

What a hand-off costs is mostly waking threads: each wake-up of a parked thread is a context switch and a
hand-over of the GIL, and with `asyncio.to_thread` every call has one, plus a self-pipe write to wake the
loop with its result (and a `concurrent.futures.Future` with its own Condition, chained to an asyncio
future). Here calls submitted during one pass of the event loop are handed over together at its end (one
wake-up for all of them), go to the thread that parked last (warm), and their results, when several come
back while the loop is busy, share one wake-up of the loop. Threads are added only when the running ones
are blocked.

The body runs in a copy of the caller's context, as with `asyncio.to_thread`: the ContextVars the call path
sets (propagated headers and the caller's deadline, the call scope of call-scoped beans, tracing, the log
fields) are what the body reads, and what the body sets stays in its own copy.

The threads are daemon threads, at most `min(32, CPUs + 4)` (asyncio's default executor's number); see
`WorkerThreads` for when they start, serve and end. A body that outlives its timeout keeps its thread until
it returns, as with `asyncio.to_thread`; being a daemon, it does not hold the process at exit.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import os
import threading
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from ..deadline import Deadlines

__all__ = ["WorkerThreads", "in_worker_thread"]


class _Handoff:
    """One event loop's side: the results worker threads finished, and whether a wake-up is on its way."""

    __slots__ = ("check_armed", "done", "flush_scheduled", "loop_ref", "wake_pending")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        # Held weakly: the pool's map from loop to handoff must not keep a finished loop alive.
        self.loop_ref = weakref.ref(loop)
        self.done: collections.deque[tuple[asyncio.Future[Any], bool, Any]] = collections.deque()
        self.wake_pending = False
        self.flush_scheduled = False  # the pool's flush of this loop's new calls is on the loop's queue
        self.check_armed = False  # the pool's stall check is armed on this loop

    def deliver(self, future: asyncio.Future[Any], ok: bool, value: Any) -> None:
        """From a worker thread: queue the result; wake the loop unless a wake-up is already pending."""
        self.done.append((future, ok, value))
        # The drain clears the flag before it empties the deque: a result appended after the flag was seen
        # set is emptied by that drain; one appended after it was cleared schedules the next drain.
        if not self.wake_pending:
            self.wake_pending = True
            loop = self.loop_ref()
            try:
                if loop is None:
                    raise RuntimeError("the loop is gone")
                loop.call_soon_threadsafe(self._drain)
            except RuntimeError:  # the loop is closed: nobody awaits the result any more
                self.done.clear()

    def _drain(self) -> None:
        self.wake_pending = False
        done = self.done
        while done:
            future, ok, value = done.popleft()
            if future.done():  # cancelled: its timeout fired, or its caller went away
                continue
            if ok:
                future.set_result(value)
            elif isinstance(value, StopIteration):  # an asyncio future refuses it, as a coroutine does
                future.set_exception(RuntimeError(f"tool body raised StopIteration: {value!r}"))
            else:
                future.set_exception(value)


_Item = tuple[_Handoff, asyncio.Future[Any], contextvars.Context, Callable[..., Any], Mapping[str, Any]]

STALL_S = 0.001  # a call waiting this long while no running body finished starts more threads
IDLE_S = 30.0  # a parked thread this long unused ends (the last one stays)


class WorkerThreads:
    """A pool of daemon threads; `submit` is called on an event loop's thread.

    Threads take calls from one deque. A thread with nothing to do parks on a lock of its own, and a new
    call wakes the thread parked last: under a steady load of short bodies the same one or two threads
    serve every call, warm, and the others stay parked (and end after `IDLE_S`). A call that finds every
    thread running waits for one of them; only when none of them finished a body for `STALL_S` (they are
    blocked: I/O, sleeps) are threads added, as many as calls wait, up to `max_workers`.
    """

    def __init__(self, max_workers: int) -> None:
        if max_workers < 1:
            raise ValueError(f"WorkerThreads needs at least one thread, not {max_workers}")
        self.max_workers = max_workers
        self._reset()

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._pending: collections.deque[_Item] = collections.deque()
        self._parked: list[threading.Lock] = []  # a stack: the last parked is woken first
        self._threads = 0
        self._finished = 0  # bodies run to their end, the stall check's sign of progress
        self._handoffs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Handoff] = (
            weakref.WeakKeyDictionary()
        )

    @property
    def threads(self) -> int:
        """How many worker threads are alive (or starting)."""
        return self._threads

    def submit(self, function: Callable[..., Any], kwargs: Mapping[str, Any]) -> asyncio.Future[Any]:
        """Run `function(**kwargs)` in a worker thread, in a copy of the current context; the returned
        future (of the running loop) gets its value or exception. Cancelling the future does not stop it."""
        loop = asyncio.get_running_loop()
        handoff = self._handoffs.get(loop)
        if handoff is None:
            handoff = self._handoffs[loop] = _Handoff(loop)
        future = loop.create_future()
        item = (handoff, future, contextvars.copy_context(), function, kwargs)
        with self._lock:
            self._pending.append(item)
            flush = not handoff.flush_scheduled
            handoff.flush_scheduled = True
        if flush:  # after the loop's other ready callbacks: the calls they submit share one wake-up
            loop.call_soon(self._flush, handoff)
        return future

    def _flush(self, handoff: _Handoff) -> None:
        """On the loop: hand the calls submitted since the last flush to the threads."""
        start = check = False
        wake: threading.Lock | None = None
        with self._lock:
            handoff.flush_scheduled = False
            if not self._pending:
                return
            if self._threads == len(self._parked):  # none running, to take the calls when it is done
                if self._parked:
                    wake = self._parked.pop()
                else:
                    self._threads, start = 1, True
            if self._threads < self.max_workers and not handoff.check_armed:
                handoff.check_armed = check = True
                finished = self._finished
        if wake is not None:
            wake.release()
        elif start:
            self._start(1)
        if check:
            self._arm_check(handoff, finished)

    def _arm_check(self, handoff: _Handoff, finished: int) -> None:
        loop = handoff.loop_ref()
        if loop is not None:
            Deadlines.of_loop(loop).arm(STALL_S, lambda: self._check_stall(handoff, finished))

    def _check_stall(self, handoff: _Handoff, finished: int) -> None:
        """On the loop, `STALL_S` after calls were handed over: while calls wait and no body finished in
        that time (the running ones are blocked), wake or start a thread for each waiting call."""
        wake: list[threading.Lock] = []
        with self._lock:
            handoff.check_armed = False
            waiting = len(self._pending)
            if not waiting:
                return
            if self._finished != finished:  # the threads make progress: look again later
                handoff.check_armed = True
                again = self._finished
                added = 0
            else:
                while self._parked and len(wake) < waiting:
                    wake.append(self._parked.pop())
                added = min(waiting - len(wake), self.max_workers - self._threads)
                self._threads += added
        for park in wake:
            park.release()
        if added:
            self._start(added)
        elif not wake:
            self._arm_check(handoff, again)

    def _start(self, count: int) -> None:
        for _ in range(count):
            threading.Thread(target=self._work, name="mesh-tool", daemon=True).start()

    def _work(self) -> None:
        lock, pending, parked = self._lock, self._pending, self._parked
        park = threading.Lock()
        park.acquire()  # held: acquiring it again parks the thread until a call releases it
        while True:
            with lock:
                item = pending.popleft() if pending else None
                if item is None:
                    parked.append(park)
            if item is None:
                if park.acquire(timeout=IDLE_S):
                    continue
                with lock:
                    if park in parked and self._threads > 1:
                        parked.remove(park)
                        self._threads -= 1
                        return
                park.acquire()  # woken as the time-out ran, or the last thread: wait on
                continue
            handoff, future, context, function, kwargs = item
            if future.done():  # cancelled before it started (its caller's time ran out): not run
                with lock:
                    self._finished += 1
                continue
            try:
                value, ok = context.run(function, **kwargs), True
            except BaseException as exc:  # handed to the caller, as an executor does
                value, ok = exc, False
            with lock:
                self._finished += 1
            handoff.deliver(future, ok, value)
            del item, handoff, future, context, function, kwargs, value  # hold nothing while idle

    def after_fork(self) -> None:
        """In a forked child the threads are gone: start afresh (calls queued in the parent are lost)."""
        self._reset()


_pool = WorkerThreads(min(32, (os.cpu_count() or 1) + 4))
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_pool.after_fork)


def in_worker_thread(function: Callable[..., Any], kwargs: Mapping[str, Any]) -> asyncio.Future[Any]:
    """`function(**kwargs)` in one of the process's tool worker threads (`WorkerThreads.submit`)."""
    return _pool.submit(function, kwargs)
