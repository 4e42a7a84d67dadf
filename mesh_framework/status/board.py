"""`StatusBoard`: the agent's status sections, each refreshed in the background on its own schedule."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from pydantic_core import to_jsonable_python

from ..config.loader import MASK, SECRET_WORDS

__all__ = ["StatusBoard", "StatusSection", "masked"]

logger = logging.getLogger("mesh_framework.status")


def masked(value: Any) -> Any:
    """`value` with every entry whose key names a secret (password, token, api_key, ...) masked."""
    if isinstance(value, Mapping):
        return {
            k: MASK if v is not None and any(w in str(k).lower() for w in SECRET_WORDS) else masked(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [masked(v) for v in value]
    return value


class StatusSection:
    """One section: its function, its last answer (or error) and when it was taken."""

    def __init__(self, name: str, function: Callable[[], Any], refresh: float) -> None:
        self.name = name
        self.function = function
        self.refresh = refresh
        self.data: Any = None
        self.error: str | None = None
        self.refreshed_at: float | None = None
        self._running: asyncio.Task[None] | None = None

    async def update(self) -> None:
        """Refresh now, or join the refresh already running."""
        if self._running is None or self._running.done():
            self._running = asyncio.get_running_loop().create_task(self._update())
        await asyncio.shield(self._running)

    async def _update(self) -> None:
        try:
            if inspect.iscoroutinefunction(self.function):
                value = await asyncio.wait_for(self.function(), self.refresh)
            else:
                value = await asyncio.wait_for(asyncio.to_thread(self.function), self.refresh)
            self.data = masked(to_jsonable_python(value, fallback=str))
            self.error = None
        except TimeoutError:
            self.error = f"status section '{self.name}' did not answer within {self.refresh}s"
            logger.warning("%s", self.error)
        except Exception as exc:
            self.error = f"{type(exc).__name__}: {exc}"
            logger.warning("status section '%s' failed: %s", self.name, self.error)
        self.refreshed_at = time.time()

    def describe(self) -> dict[str, Any]:
        refreshed = self.refreshed_at
        return {
            "name": self.name,
            "data": self.data,
            "error": self.error,
            "refreshed_at": datetime.fromtimestamp(refreshed, UTC).isoformat() if refreshed else None,
            "age_seconds": round(time.time() - refreshed, 3) if refreshed else None,
            "refresh_seconds": self.refresh,
        }


class StatusBoard:
    """Every status section of the agent; `start()` begins the background refreshes, `aclose()` ends them."""

    def __init__(self, sections: list[StatusSection], agent: str = "") -> None:
        self.sections = {s.name: s for s in sections}
        self.agent = agent
        self._loops: list[asyncio.Task[None]] = []

    def start(self) -> None:
        if self._loops or not self.sections:
            return
        loop = asyncio.get_running_loop()
        self._loops = [
            loop.create_task(self._refresh_every(s), name=f"status {s.name}") for s in self.sections.values()
        ]

    async def _refresh_every(self, section: StatusSection) -> None:
        while True:
            await section.update()
            await asyncio.sleep(section.refresh)

    async def snapshot(self, name: str | None = None, *, live: bool = False) -> dict[str, Any]:
        """The sections (or the one `name`; KeyError if unknown) as JSON data; `live` refreshes them first.
        A section never refreshed yet is waited for."""
        chosen = [self.sections[name]] if name is not None else list(self.sections.values())
        waiting = [s.update() for s in chosen if live or s.refreshed_at is None]
        if waiting:
            await asyncio.gather(*waiting)
        if name is not None:
            return chosen[0].describe()
        return {"agent": self.agent, "sections": {s.name: s.describe() for s in chosen}}

    async def aclose(self) -> None:
        """Stop the refreshes, in-flight ones included (the board may serve again, on another loop)."""
        tasks = [*self._loops, *(s._running for s in self.sections.values() if s._running is not None)]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._loops = []
        for section in self.sections.values():
            section._running = None
