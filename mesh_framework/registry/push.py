"""`TopologyPush`: the embedded registry pushes each agent's new answer the moment it changes (SSE).

`GET /topology/stream?agent_id=ID` is a `text/event-stream` of:

- `event: answer`: the agent's current answer, the `POST /heartbeat` answer's shape (`agent_id`,
  `timestamp`, `dependencies_resolved`, `llm_tools`, `llm_providers`): first on connect, then each
  time it changes. A pushed answer counts as delivered, so the agent's next HEAD says 200.
- `event: unknown`: on connect, when the registry does not know the agent (it restarted without a
  database): POST a heartbeat now.
- `: ping` comments every `PING_INTERVAL` seconds, so dead connections are noticed.

`GET /ui/stream` is the page's stream: `event: changed` with `{"revision": N}` after any store event.

Bounded buffers: every subscriber holds at most one pending message, the latest (an answer replaces
the one not yet sent; the page only needs the newest revision). A client that never reads blocks only its
own response (uvicorn's flow control), never the store or other subscribers.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from ..sse import KEEP_ALIVE, MEDIA_TYPE, encode
from .events import StoreEvent
from .store import RegistryStore
from .views import timestamp

__all__ = ["MAX_SUBSCRIBERS", "PING_INTERVAL", "Subscriber", "TopologyPush"]

logger = logging.getLogger("mesh_framework.registry")

MAX_SUBSCRIBERS = 10_000
PING_INTERVAL = 15.0


def sse(event: str, data: Any) -> bytes:
    """One server-sent event, `data` as compact JSON on one line (JSON escapes every line ending; the
    frame is still written by the one encoder that splits any)."""
    return encode(json.dumps(data, separators=(",", ":")), event=event)


class Subscriber:
    """One open stream: a single pending message (the latest wins), and a closed flag."""

    __slots__ = ("_pending", "_ready", "closed", "dropped")

    def __init__(self) -> None:
        self._pending: bytes | None = None
        self._ready = asyncio.Event()
        self.closed = False
        self.dropped = 0  # messages replaced before they were sent

    @property
    def pending(self) -> int:
        return 0 if self._pending is None else 1

    def offer(self, message: bytes) -> None:
        if self._pending is not None:
            self.dropped += 1
        self._pending = message
        self._ready.set()

    def close(self) -> None:
        self.closed = True
        self._ready.set()

    async def messages(self, ping_interval: float) -> AsyncIterator[bytes]:
        while not self.closed:
            try:
                await asyncio.wait_for(self._ready.wait(), ping_interval)
            except TimeoutError:
                yield KEEP_ALIVE
                continue
            self._ready.clear()
            message, self._pending = self._pending, None
            if message is not None:
                yield message


class TopologyPush:
    """The registry's push streams, fed by the store's events.

    Usage (done by `build_registry_app`):

        push = TopologyPush(store)
        routes = [..., *push.routes()]      # /topology/stream and /ui/stream
        push.close()                        # on shutdown: every stream ends
    """

    def __init__(
        self,
        store: RegistryStore,
        *,
        ping_interval: float = PING_INTERVAL,
        max_subscribers: int = MAX_SUBSCRIBERS,
    ) -> None:
        self.store = store
        self.ping_interval = ping_interval
        self.max_subscribers = max_subscribers
        self.revision = 0
        self.agents: dict[str, set[Subscriber]] = {}
        self.pages: set[Subscriber] = set()
        self._dirty: set[str] = set()
        self._scheduled = False
        self._unsubscribe: Callable[[], None] | None = store.events.subscribe(self._on_event)

    @property
    def subscribers(self) -> list[Subscriber]:
        return [s for group in self.agents.values() for s in group] + list(self.pages)

    def close(self) -> None:
        """End every stream (the registry is stopping) and stop listening to the store."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        for subscriber in self.subscribers:
            subscriber.close()

    # -- store side ---------------------------------------------------------------------------------

    def _on_event(self, event: StoreEvent) -> None:
        self.revision += 1
        if event.kind == "providers":
            self._dirty.update(a for a in event.consumers if a in self.agents)
        elif event.kind in ("registered", "updated") and event.agent_id in self.agents:
            self._dirty.add(event.agent_id)
        if self.pages:
            message = sse("changed", {"revision": self.revision})
            for page in self.pages:
                page.offer(message)
        if self._dirty and not self._scheduled:
            self._scheduled = True
            try:
                asyncio.get_running_loop().call_soon(self._flush)
            except RuntimeError:  # the store used outside a loop (tests, tools): push now
                self._flush()

    def _flush(self) -> None:
        """Push the new answers of dirty subscribed agents (coalesced: once per loop iteration)."""
        self._scheduled = False
        dirty, self._dirty = self._dirty, set()
        for agent_id in dirty:
            subscribers = self.agents.get(agent_id)
            state = self.store.get(agent_id)
            if not subscribers or state is None:
                continue
            try:
                answer = self.store.current_answer(agent_id)
            except Exception:
                logger.exception("could not compute the answer of %s", agent_id)
                continue
            if answer is None or answer == state.sent:
                continue
            self._push(agent_id, answer, subscribers)

    def _push(self, agent_id: str, answer: dict[str, Any], subscribers: set[Subscriber]) -> None:
        message = sse("answer", {"agent_id": agent_id, "timestamp": timestamp(), **answer})
        for subscriber in subscribers:
            subscriber.offer(message)
        self.store.mark_sent(agent_id, answer)

    # -- HTTP side ----------------------------------------------------------------------------------

    def routes(self) -> list[Route]:
        return [
            Route("/topology/stream", self.agent_stream, methods=["GET"]),
            Route("/ui/stream", self.page_stream, methods=["GET"]),
        ]

    def _full(self) -> Response | None:
        if len(self.subscribers) >= self.max_subscribers:
            return JSONResponse(
                {"status": "error", "message": f"too many push subscribers ({self.max_subscribers})"},
                status_code=503,
                headers={"Retry-After": "5"},
            )
        return None

    async def agent_stream(self, request: Request) -> Response:
        agent_id = request.query_params.get("agent_id", "")
        if not agent_id:
            return JSONResponse(
                {
                    "status": "error",
                    "message": "GET /topology/stream needs ?agent_id=ID (the id the agent registered with)",
                    "field": "agent_id",
                },
                status_code=400,
            )
        full = self._full()
        if full is not None:
            return full
        subscriber = Subscriber()
        self.agents.setdefault(agent_id, set()).add(subscriber)
        state = self.store.get(agent_id)
        if state is None:
            subscriber.offer(sse("unknown", {"agent_id": agent_id}))
        elif state.healthy:
            answer = self.store.current_answer(agent_id)
            if answer is not None:
                self._push(agent_id, answer, {subscriber})

        def forget() -> None:
            group = self.agents.get(agent_id)
            if group is not None:
                group.discard(subscriber)
                if not group:
                    del self.agents[agent_id]

        return _stream(subscriber, self.ping_interval, forget)

    async def page_stream(self, request: Request) -> Response:
        full = self._full()
        if full is not None:
            return full
        subscriber = Subscriber()
        subscriber.offer(sse("changed", {"revision": self.revision}))
        self.pages.add(subscriber)
        return _stream(subscriber, self.ping_interval, lambda: self.pages.discard(subscriber))


class _EventStream(StreamingResponse):
    """A streaming response that unsubscribes however it ends (client gone, registry stopping)."""

    def __init__(self, subscriber: Subscriber, ping_interval: float, forget: Callable[[], None]) -> None:
        super().__init__(
            subscriber.messages(ping_interval),
            media_type=MEDIA_TYPE,
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )
        self.subscriber = subscriber
        self.forget = forget

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.subscriber.closed = True
            self.forget()


def _stream(subscriber: Subscriber, ping_interval: float, forget: Callable[[], None]) -> Response:
    return _EventStream(subscriber, ping_interval, forget)
