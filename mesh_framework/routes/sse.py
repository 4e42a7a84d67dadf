"""Server-Sent Events for `Stream[str]` routes, byte for byte as MCP Mesh's routes send them.

Each chunk is one event (`data: <chunk>`; a chunk with newlines is several `data:` lines of one event),
`data: [DONE]` ends the stream, and a failure after the stream has started is an `event: error` whose data
is `{"error": ..., "type": ...}` (no `[DONE]` then). A client that disconnects cancels the generator.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
from starlette.responses import Response

from ..failures import log_failure
from ..sse_frames import event_frame

__all__ = ["EventStreamResponse", "event_bytes"]

logger = logging.getLogger("mesh_framework.routes")

DONE = b"data: [DONE]\n\n"
_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no", "connection": "keep-alive"}


def event_bytes(chunk: str) -> bytes:
    """One chunk as one event: `data: a\\ndata: b\\n\\n` for `"a\\nb"` (or `"a\\rb"`, `"a\\r\\nb"`: a
    reader splits lines on all three), `data: \\n\\n` for `""`."""
    return event_frame(chunk)


def error_bytes(message: str, kind: str) -> bytes:
    return f"event: error\ndata: {json.dumps({'error': message, 'type': kind})}\n\n".encode()


class EventStreamResponse(Response):
    """A `text/event-stream` answer fed by an async generator of str chunks."""

    media_type = "text/event-stream"

    def __init__(
        self, chunks: AsyncIterator[str], *, route: str, error_message: Callable[[BaseException], str] = str
    ) -> None:
        self.chunks = chunks
        self.route = route
        self.error_message = error_message
        self.status_code = 200
        self.background = None
        self.init_headers(_HEADERS)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        async with anyio.create_task_group() as group:

            async def until_disconnect() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                logger.debug("route %s: the client went away; its stream is closed", self.route)
                group.cancel_scope.cancel()

            group.start_soon(until_disconnect)
            try:
                await self._stream(send)
            finally:
                group.cancel_scope.cancel()

    async def _stream(self, send: Any) -> None:
        chunks = self.chunks
        try:
            try:
                async for chunk in chunks:
                    text = chunk if isinstance(chunk, str) else str(chunk)
                    await send({"type": "http.response.body", "body": event_bytes(text), "more_body": True})
            except OSError:
                return  # the connection is gone (a server that raises on send after a disconnect)
            except Exception as exc:
                log_failure(logger, f"route {self.route} (stream)", exc)
                tail = error_bytes(self.error_message(exc), type(exc).__name__)
            else:
                tail = DONE
            await send({"type": "http.response.body", "body": tail, "more_body": False})
        finally:
            aclose = getattr(chunks, "aclose", None)
            if aclose is not None:
                with anyio.CancelScope(shield=True):
                    await aclose()  # the generator's finally runs now, also when the client went away
