"""Server-Sent Events for `Stream[str]` routes, byte for byte as MCP Mesh's routes send them.

Each chunk is one event (`data: <chunk>`; a chunk with newlines is several `data:` lines of one event),
`data: [DONE]` ends the stream, and a failure after the stream has started is an `event: error` whose data
is `{"error": ..., "type": ...}` (no `[DONE]` then). A client that disconnects cancels the generator; an
agent that stops gives the stream its grace, then ends it with an `AgentStopped` error event.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.responses import Response

from ..failures import log_failure
from ..protocol.drain import Drain
from ..sse import MEDIA_TYPE, encode, wait_for_disconnect
from ..tools.streaming import STREAM_BUFFER, ChunkChannel

__all__ = ["EventStreamResponse", "event_bytes"]

logger = logging.getLogger("mesh_framework.routes")

DONE = encode("[DONE]")
_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no", "connection": "keep-alive"}


def event_bytes(chunk: str) -> bytes:
    """One chunk as one event: `data: a\\ndata: b\\n\\n` for `"a\\nb"` (or `"a\\rb"`, `"a\\r\\nb"`: a
    reader splits lines on all three), `data: \\n\\n` for `""`."""
    return encode(chunk)


def error_bytes(message: str, kind: str) -> bytes:
    return encode(json.dumps({"error": message, "type": kind}), event="error")


class EventStreamResponse(Response):
    """A `text/event-stream` answer fed by an async generator of str chunks.

    The generator runs in a task of its own feeding a bounded channel, as a stream tool does
    (`protocol/streaming.py`): the writer and a watch for the client's disconnect get the loop at least
    every `STREAM_BUFFER` chunks, even from a generator that never awaits, so a client that leaves cancels
    it. With `drain` (the agent's), a stopping agent waits for the stream like a call in flight,
    then ends it with an error event saying so."""

    media_type = MEDIA_TYPE

    def __init__(
        self,
        chunks: AsyncIterator[str],
        *,
        route: str,
        error_message: Callable[[BaseException], str] = str,
        drain: Drain | None = None,
    ) -> None:
        self.chunks = chunks
        self.route = route
        self.error_message = error_message
        self.drain = drain
        self.status_code = 200
        self.background = None
        self.init_headers(_HEADERS)
        self.sent = 0  # chunks handed to the channel

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        channel = ChunkChannel(STREAM_BUFFER)
        producer = asyncio.ensure_future(self._produce(channel))
        producer.add_done_callback(lambda _p: channel.close())
        drain = self.drain
        if drain is not None:
            drain.stream_started(producer)
        watch = asyncio.ensure_future(wait_for_disconnect(receive))
        watch.add_done_callback(lambda w: w.cancelled() or producer.cancel())
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            while (event := await channel.receive()) is not None:
                await send({"type": "http.response.body", "body": event, "more_body": True})
            if not producer.cancelled():
                tail = producer.result()
            elif watch.done() or drain is None or not drain.streams.ended:
                logger.debug("route %s: the client went away; its stream is closed", self.route)
                return
            else:  # the agent is stopping: the client gets what was sent and an error event saying why
                logger.warning(
                    "route %s: the agent is stopping; stream ended after %d chunk(s)", self.route, self.sent
                )
                message = f"route {self.route} stopped after {self.sent} chunk(s): the agent is shutting down"
                tail = error_bytes(message, "AgentStopped")
            await send({"type": "http.response.body", "body": tail, "more_body": False})
        except OSError:
            return  # the connection is gone (a server that raises on send after a disconnect)
        finally:
            watch.cancel()
            try:
                if not producer.done():
                    producer.cancel()  # our own request was cancelled: the generator stops with it
                    await asyncio.wait((producer,))
            finally:
                if drain is not None:
                    drain.stream_ended()

    async def _produce(self, channel: ChunkChannel) -> bytes:
        """Run the generator into `channel`; the stream's last event (`[DONE]`, or the error)."""
        chunks = self.chunks
        try:
            async for chunk in chunks:
                text = chunk if isinstance(chunk, str) else str(chunk)
                await channel.send(event_bytes(text))  # waits (gives the loop away) while the channel is full
                self.sent += 1
        except Exception as exc:
            log_failure(logger, f"route {self.route} (stream)", exc)
            return error_bytes(self.error_message(exc), type(exc).__name__)
        finally:
            aclose = getattr(chunks, "aclose", None)
            if aclose is not None:
                await aclose()  # the generator's finally runs now, also when the client went away
        return DONE
