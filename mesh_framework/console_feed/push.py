"""`ConsolePush`: every `interval` seconds, what the agent's `TrafficRecorder` counted and the spans that
finished since go to the registry in one `POST /console/push`.

Nothing is sent when nothing happened. A registry that does not know the route (MCP Mesh's: 404 or 405)
ends the push and turns the recorder and the span buffer off. While the registry is unreachable the
counters of each failed push are dropped (the console shows traffic, it is not an accounting record).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

import httpx2

from ..tracing.state import SpanRecord, state
from .recorder import TrafficRecorder

__all__ = ["ConsolePush"]

logger = logging.getLogger("mesh_framework.console_feed")


class ConsolePush:
    """Pushes one agent's counters and spans to the registry at `url()`."""

    def __init__(
        self,
        http: httpx2.AsyncClient,
        url: Callable[[], str],
        agent_id: str,
        recorder: TrafficRecorder,
        spans: deque[SpanRecord],
        *,
        interval: float = 1.0,
        headers: Mapping[str, str] | None = None,
        after: asyncio.Event | None = None,
    ) -> None:
        self.http = http
        self.url = url
        self.agent_id = agent_id
        self.recorder = recorder
        self.spans = spans
        self.interval = interval
        self.headers = dict(headers or {})
        self.after = after
        self.pushed = 0  # pushes the registry took (tests wait on it)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"console push {self.agent_id}")

    def payload(self) -> dict[str, Any] | None:
        """What happened since the last payload, or None when nothing did."""
        counters = self.recorder.take()
        spans = self.spans
        taken = [spans.popleft() for _ in range(len(spans))]
        if not (taken or counters["tools"] or counters["edges"] or counters["tokens"]):
            return None
        # spans as recorded: ids are integers (the registry writes them in hex), no work per span here
        return {"agent_id": self.agent_id, **counters, "spans": taken}

    async def push_now(self) -> bool:
        """Send what is pending; False when the registry has no console (the push is then off)."""
        body = self.payload()
        if body is None:
            return True
        try:
            response = await self.http.post(self.url() + "/console/push", json=body, headers=self.headers)
        except httpx2.HTTPError as exc:
            logger.debug("console push failed: %s", exc)
            return True
        if response.status_code in (404, 405):
            status = response.status_code
            logger.info("the registry has no console (HTTP %d): traffic and spans are not gathered", status)
            self.off()
            return False
        if response.status_code < 300:
            self.pushed += 1
        else:
            logger.debug("console push refused: HTTP %d", response.status_code)
        return True

    def off(self) -> None:
        self.recorder.enabled = False
        if state.spans is self.spans:
            state.spans = None
        self.spans.clear()

    async def _run(self) -> None:
        if self.after is not None:
            await self.after.wait()
        while True:
            await asyncio.sleep(self.interval)
            state.budget.refill()  # the new traces of the next second (tracing/sampling.py)
            try:
                if not await self.push_now():
                    return
            except Exception:
                logger.exception("console push failed")

    async def stop(self) -> None:
        """Send what is pending once more, then stop."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.push_now(), timeout=1.0)
