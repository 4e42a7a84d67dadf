"""`TopologySubscription`: the agent follows the embedded registry's push stream (`GET /topology/stream`).

Each `answer` event is applied like a heartbeat answer, so a consumer learns of a new, removed or
unhealthy provider as soon as the registry does (milliseconds), not at its next heartbeat. The heartbeat
keeps running as before: it keeps the agent registered and covers whatever the stream misses.

- A registry without the stream (MCP Mesh's answers 404) ends the subscription: heartbeat only.
- A dropped stream (the registry restarted, the network blinked) is reopened with a short backoff
  (`RETRY_FIRST` doubling to `RETRY_MAX`); on reconnect the registry sends the current answer, or
  `unknown` when it lost the agent, and then the agent registers again at once (`on_unknown`).
- Answers are ordered by their registry `timestamp`: a `POST /heartbeat` answer computed before the
  last pushed one (the two travel on different connections) is stale and is not applied.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

import httpx2

from ..security.redaction import redact_url
from ..sse import MEDIA_TYPE, aiter_events

__all__ = ["RETRY_FIRST", "RETRY_MAX", "TopologySubscription"]

logger = logging.getLogger("mesh_framework.mesh")

RETRY_FIRST = 0.05
RETRY_MAX = 1.0
READ_TIMEOUT = 60.0  # the registry pings every 15 s; silence for this long means a dead connection


class TopologySubscription:
    """Reads one agent's push stream and hands each answer to `on_answer`.

    Usage (done by `MeshRuntime`):

        subscription = TopologySubscription(http, lambda: client.url, agent_id,
                                            on_answer=apply, on_unknown=heartbeat_now)
        subscription.start()
        ...
        await subscription.stop()
    """

    def __init__(
        self,
        http: httpx2.AsyncClient,
        url: Callable[[], str],
        agent_id: str,
        *,
        on_answer: Callable[[dict[str, Any]], None],
        on_unknown: Callable[[], None],
        headers: Mapping[str, str] | None = None,
        after: asyncio.Event | None = None,
    ) -> None:
        self.http = http
        self.url = url
        self.agent_id = agent_id
        self.on_answer = on_answer
        self.on_unknown = on_unknown
        self.headers = dict(headers or {})
        self.after = after  # connect once this is set (the first heartbeat registered the agent)
        self.connected = asyncio.Event()  # set while a stream is open
        self.supported: bool | None = None  # None until the registry answered once
        self.connections = 0  # streams opened so far (1 + reconnections)
        self._last_stamp = ""
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"topology {self.agent_id}")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self.connected.clear()

    def outdated(self, answer: Mapping[str, Any]) -> bool:
        """True for a heartbeat answer computed before the last pushed one (do not apply it)."""
        stamp = answer.get("timestamp")
        return bool(self._last_stamp) and isinstance(stamp, str) and stamp < self._last_stamp

    async def _run(self) -> None:
        if self.after is not None:
            await self.after.wait()
        delay = RETRY_FIRST
        while True:
            try:
                if await self._follow():
                    return
                delay = RETRY_FIRST  # the stream was open: reconnect at once, then back off
            except (httpx2.HTTPError, ValueError) as exc:
                logger.debug("topology stream of %s dropped (%s); reconnecting", self.agent_id, exc)
            except Exception:
                logger.exception("topology stream answer could not be applied")
            self.connected.clear()
            await asyncio.sleep(delay)
            delay = min(RETRY_MAX, delay * 2)

    async def _follow(self) -> bool:
        """Read one stream until it ends; True when the registry has no stream (stop for good)."""
        url = self.url().rstrip("/") + "/topology/stream"
        timeout = httpx2.Timeout(5.0, read=READ_TIMEOUT)
        async with self.http.stream(
            "GET",
            url,
            params={"agent_id": self.agent_id},
            headers={"Accept": MEDIA_TYPE, **self.headers},
            timeout=timeout,
        ) as response:
            if response.status_code in (404, 405):
                self.supported = False
                logger.info(
                    "registry %s has no topology stream; following it by heartbeat only", redact_url(url)
                )
                return True
            if response.status_code != 200:
                raise ValueError(f"registry answered GET /topology/stream with HTTP {response.status_code}")
            self.supported = True
            self.connections += 1
            self.connected.set()
            async for event in aiter_events(response.aiter_bytes()):
                self._dispatch(event.event, event.data)
        return False

    def _dispatch(self, event: str, data: str) -> None:
        if event == "unknown":
            # the heartbeat registers again and logs it (one line for the event, whichever noticed first)
            logger.debug("the registry's topology stream does not know %s", self.agent_id)
            self.on_unknown()
        elif event == "answer":
            answer = json.loads(data)
            if not isinstance(answer, dict):
                return
            stamp = answer.get("timestamp")
            if isinstance(stamp, str):
                self._last_stamp = max(self._last_stamp, stamp)
            self.on_answer(answer)
