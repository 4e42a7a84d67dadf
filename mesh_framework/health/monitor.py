"""`HealthMonitor`: runs the indicators, caches their verdict for `health.cache_ttl`, tells listeners when
the agent's status changes.

Every indicator runs under `health.timeout`: one that raises, hangs or answers nonsense is DOWN with the
reason, and a sync one that still hangs from an earlier round is not started twice. Readers of the verdict
(the heartbeat, `/health`) never wait on a slow check: `report` is the cached verdict, `check()` refreshes
it only when it is older than the TTL (concurrent callers share one round, bounded by the timeout), and a
background task refreshes it every TTL while the agent serves.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import field
from typing import Any

from .._frozen import frozen
from .indicator import NamedIndicator
from .status import Health, HealthStatus, aggregate, to_health

__all__ = ["HealthMonitor", "HealthReport"]

logger = logging.getLogger("mesh_framework.health")

StatusListener = Callable[[HealthStatus], None]


@frozen
class HealthReport:
    """The agent's status and each indicator's `Health`; `checked_at` is monotonic (0: never checked)."""

    status: HealthStatus
    components: dict[str, Health] = field(default_factory=dict)
    checked_at: float = 0.0

    def to_json(self, *, details: bool) -> dict[str, Any]:
        body: dict[str, Any] = {"status": self.status.value}
        if details and self.components:
            body["components"] = {
                name: {"status": h.status.value, **({"details": dict(h.details)} if h.details else {})}
                for name, h in self.components.items()
            }
        return body


class HealthMonitor:
    """The indicators of one agent and their cached verdict.

    Usage:

        monitor = HealthMonitor([NamedIndicator("db", ping)], cache_ttl=15, timeout=5)
        report = await monitor.check()       # cached for cache_ttl seconds
        monitor.add_listener(on_status)      # called with the new HealthStatus when it changes
        monitor.start(); ...; await monitor.stop()
    """

    def __init__(
        self, indicators: Iterable[NamedIndicator] = (), *, cache_ttl: float = 15.0, timeout: float = 5.0
    ) -> None:
        self.indicators: list[NamedIndicator] = list(indicators)
        self.cache_ttl = cache_ttl
        self.timeout = timeout
        self.report = HealthReport(HealthStatus.UP)
        self._listeners: list[StatusListener] = []
        self._round: asyncio.Task[HealthReport] | None = None
        self._pending: dict[str, asyncio.Future[Any]] = {}
        self._task: asyncio.Task[None] | None = None

    def add(self, indicator: NamedIndicator) -> None:
        self.indicators.append(indicator)
        self.report = HealthReport(self.report.status, self.report.components)  # stale: check again

    def add_listener(self, listener: StatusListener) -> None:
        if listener not in self._listeners:
            self._listeners.append(listener)

    @property
    def status(self) -> HealthStatus:
        return self.report.status

    @property
    def fresh(self) -> bool:
        return self.report.checked_at > 0 and time.monotonic() - self.report.checked_at < self.cache_ttl

    async def check(self) -> HealthReport:
        """The verdict, refreshed first when older than the TTL (at most `timeout` seconds)."""
        if not self.indicators or self.fresh:
            return self.report
        return await self.refresh()

    async def refresh(self) -> HealthReport:
        """Run every indicator now (concurrent callers share the round)."""
        if self._round is None or self._round.done():
            self._round = asyncio.ensure_future(self._run_round())
        return await asyncio.shield(self._round)

    def start(self) -> None:
        """Refresh every `cache_ttl` seconds in the background (nothing to do without indicators)."""
        if self.indicators and self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._loop(), name="health monitor")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _loop(self) -> None:
        while True:
            try:
                await self.refresh()
            except Exception:  # never stop watching
                logger.exception("health check round failed")
            await asyncio.sleep(self.cache_ttl)

    async def _run_round(self) -> HealthReport:
        results = await asyncio.gather(*(self._run_one(i) for i in self.indicators))
        components = {i.name: h for i, h in zip(self.indicators, results, strict=True)}
        previous = self.report
        self.report = report = HealthReport(
            aggregate(h.status for h in results), components, time.monotonic()
        )
        if report.status is not previous.status:
            logger.log(
                logging.WARNING if report.status is HealthStatus.DOWN else logging.INFO,
                "health is %s%s",
                report.status.value,
                "".join(
                    f"; {n}: {h.details}" for n, h in components.items() if h.status is not HealthStatus.UP
                ),
            )
            for listener in list(self._listeners):
                try:
                    listener(report.status)
                except Exception:
                    logger.exception("health listener failed")
        return report

    async def _run_one(self, indicator: NamedIndicator) -> Health:
        pending = self._pending.get(indicator.name)
        if pending is not None and not pending.done():
            return Health.down(error=f"still running after {self.timeout}s (started in an earlier round)")
        is_async = inspect.iscoroutinefunction(indicator.check)
        running: asyncio.Future[Any] = asyncio.ensure_future(_invoke(indicator.check, is_async))
        self._pending[indicator.name] = running
        done, _ = await asyncio.wait({running}, timeout=self.timeout)
        if not done:
            # A sync check's thread cannot be stopped: it stays pending (and DOWN) until it returns.
            if is_async:
                running.cancel()
            running.add_done_callback(_consume)
            return Health.down(error=f"no answer within {self.timeout}s")
        exc = running.exception()
        if exc is not None:
            return Health.down(error=f"{type(exc).__name__}: {exc}")
        return to_health(running.result())


async def _invoke(check: Callable[[], Any], is_async: bool) -> Any:
    value = await check() if is_async else await _in_thread(check)
    if inspect.isawaitable(value):
        value = await value
    return value


def _in_thread(check: Callable[[], Any]) -> asyncio.Future[Any]:
    """Run a sync check in a daemon thread of its own: a check that never returns holds no executor
    worker and never keeps the process from exiting."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(value: Any, exc: BaseException | None) -> None:
        if future.done():
            return
        if exc is not None:
            future.set_exception(exc)
        else:
            future.set_result(value)

    def run() -> None:
        try:
            value, exc = check(), None
        except BaseException as error:  # handed to the loop, like asyncio.to_thread
            value, exc = None, error
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(settle, value, exc)

    threading.Thread(target=run, name="health check", daemon=True).start()
    return future


def _consume(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # retrieved: no "exception was never retrieved" warning
