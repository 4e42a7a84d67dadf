"""`RegistryFollower`: the registry's listing (`GET /agents`), read again whenever the registry says the
mesh changed.

Our registry pushes `event: changed` on `GET /ui/stream` after any change of its store (an agent
registered, updated, unhealthy or gone): the listing is read at once, so a tool appears or disappears
within milliseconds of the registry knowing. A registry without the stream (MCP Mesh's answers 404) is
read every `interval` seconds, the agents' heartbeat interval; so is ours, to cover a dropped stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import httpx2

from ..security.redaction import redact_url
from ..sse import MEDIA_TYPE, aiter_events

__all__ = ["RegistryFollower"]

logger = logging.getLogger("mesh_framework.mesh_gateway")

READ_TIMEOUT = 60.0  # the registry pings every 15 s: silence this long is a dead connection
RETRY_FIRST, RETRY_MAX = 0.05, 1.0


class RegistryFollower:
    """Hands each new listing (the agents of `GET /agents`) to `on_listing`.

    Usage: `follower = RegistryFollower(http, url, on_listing=apply); await follower.start(); ...;
    await follower.stop()`. `start` reads the listing once before it returns (the gateway serves a full
    list from its first request); a registry that does not answer then is read again every `interval`."""

    def __init__(
        self,
        http: httpx2.AsyncClient,
        url: str,
        *,
        on_listing: Callable[[list[Any]], Awaitable[None]],
        headers: Mapping[str, str] | None = None,
        interval: float = 5.0,
    ) -> None:
        self.http = http
        self.url = url.rstrip("/")
        self.on_listing = on_listing
        self.headers = dict(headers or {})
        self.interval = interval
        self.pushed = asyncio.Event()  # set once the registry's change stream is open
        self.reads = 0  # listings read so far
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        try:
            await self.refresh()
        except RegistryUnreachable as exc:  # served without tools until it answers
            logger.warning("gateway: %s; its tools are served once it answers", exc)
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._read_on_change(), name="gateway listing"),
            loop.create_task(self._follow_stream(), name="gateway registry stream"),
            loop.create_task(self._poll(), name="gateway registry poll"),
        ]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []

    def wake(self) -> None:
        """Read the listing again soon (a call found an agent gone)."""
        self._wake.set()

    async def refresh(self) -> None:
        """Read the listing now and hand it on."""
        try:
            response = await self.http.get(
                self.url + "/agents?schemas=true", headers=self.headers, timeout=httpx2.Timeout(10.0)
            )
        except httpx2.HTTPError as exc:
            raise RegistryUnreachable(
                f"the registry at {redact_url(self.url)} cannot be reached ({type(exc).__name__}: {exc})"
            ) from None
        if response.status_code != 200:
            raise RegistryUnreachable(
                f"the registry at {redact_url(self.url)} answered GET /agents with HTTP "
                f"{response.status_code}" + (" (set registry.token)" if response.status_code == 401 else "")
            )
        try:
            body = response.json()
        except ValueError:
            raise RegistryUnreachable(f"{redact_url(self.url)}/agents did not answer JSON") from None
        agents = body.get("agents") if isinstance(body, dict) else body
        self.reads += 1
        await self.on_listing(list(agents) if isinstance(agents, list) else [])

    async def _read_on_change(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()  # changes during the read wake the next one: none is lost
            try:
                await self.refresh()
            except RegistryUnreachable as exc:
                logger.warning("gateway: %s; serving the tools it listed last", exc)
            except Exception:
                logger.exception("gateway: the registry's listing could not be applied")

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            self._wake.set()

    async def _follow_stream(self) -> None:
        delay = RETRY_FIRST
        while True:
            try:
                if not await self._stream_once():
                    return  # the registry has no change stream: the poll alone keeps the list
                delay = RETRY_FIRST
            except (httpx2.HTTPError, ValueError) as exc:
                logger.debug("gateway: the registry's change stream dropped (%s); reconnecting", exc)
            self.pushed.clear()
            await asyncio.sleep(delay)
            delay = min(RETRY_MAX, delay * 2)

    async def _stream_once(self) -> bool:
        """Follow one change stream until it ends; False when the registry has none."""
        timeout = httpx2.Timeout(5.0, read=READ_TIMEOUT)
        headers = {"Accept": MEDIA_TYPE, **self.headers}
        stream = self.http.stream("GET", self.url + "/ui/stream", headers=headers, timeout=timeout)
        async with stream as answer:
            if answer.status_code in (404, 405):
                logger.info(
                    "gateway: the registry at %s pushes no changes; reading it every %gs",
                    redact_url(self.url),
                    self.interval,
                )
                return False
            if answer.status_code != 200:
                raise ValueError(f"the registry answered GET /ui/stream with HTTP {answer.status_code}")
            self.pushed.set()
            self._wake.set()  # whatever changed while no stream was open
            async for event in aiter_events(answer.aiter_bytes()):
                if event.event == "changed":
                    self._wake.set()
        return True


class RegistryUnreachable(Exception):
    """The registry's listing could not be read: the message says where and why."""
