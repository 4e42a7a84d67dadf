"""A `Stream[str]` tool's call answered as an event stream: one progress notification per chunk, written
as it is yielded, then the result with every chunk joined (MCP Mesh's framing).

Each chunk is `notifications/progress` for the call's `progressToken`, the chunk in `message` and
`progress` counting 0.0, 1.0, … (no `total`). Between the tool and the socket sits a bounded channel: a
client that reads slowly holds the tool back, never the agent's memory. A client that goes away cancels
the tool's task, which closes its generator (and whatever stream it was reading in turn); the call is
counted as served, not as an error.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from time import perf_counter
from typing import Any

from pydantic_core import to_json

from .. import observation
from ..propagation import call_deadline
from ..sse import MEDIA_TYPE, encode, wait_for_disconnect
from ..tools.context import ToolContext
from ..tools.streaming import CHUNK_SINK, STREAM_BUFFER, ChunkChannel
from ..tools.wrapper import MeshToolWrapper, error_result
from .drain import OpenStreams
from .versions import META_CLIENT_CAPABILITIES, META_LOG_LEVEL

__all__ = ["OpenStreams", "serve_stream", "streams_to"]

logger = logging.getLogger("mesh_framework.protocol")

Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

_MEDIA_TYPE = MEDIA_TYPE.encode()
_STREAM_HEADERS = [
    (b"content-type", MEDIA_TYPE.encode()),
    (b"cache-control", b"no-cache, no-transform"),
    (b"x-accel-buffering", b"no"),  # no proxy buffering either
]


def streams_to(params: dict[str, Any], accept: bytes) -> Any:
    """The progress token a call is streamed to: the request's `_meta.progressToken` when the client
    accepts an event stream, else None (the call is answered buffered)."""
    meta = params.get("_meta")
    token = meta.get("progressToken") if isinstance(meta, dict) else None
    if token is None or not (_MEDIA_TYPE in accept or b"*/*" in accept):
        return None
    return token


def _frame(message: dict[str, Any]) -> bytes:
    return encode(to_json(message), event="message")


async def serve_stream(
    wrapper: MeshToolWrapper,
    params: dict[str, Any],
    request_id: Any,
    token: Any,
    *,
    modern: bool,
    send: Send,
    receive: Receive,
    stamp: Callable[[dict[str, Any]], dict[str, Any]],
    on_tool_call: Callable[[str, bool, float], None] | None,
    open_streams: OpenStreams | None = None,
) -> None:
    """Run `wrapper` (a stream tool) and write its chunks to `send` as they come; `stamp` finishes the
    result for the request's protocol era."""
    channel = ChunkChannel(STREAM_BUFFER)
    position = 0

    async def chunk(text: str) -> None:
        nonlocal position
        params = {"progressToken": token, "progress": float(position), "message": text}
        position += 1
        await channel.send(_frame({"jsonrpc": "2.0", "method": "notifications/progress", "params": params}))

    async def notify(message: dict[str, Any]) -> None:
        await channel.send(_frame(message))

    context = None
    if wrapper.signature.wants_context:
        meta = params.get("_meta")
        meta = meta if isinstance(meta, dict) else {}
        context = ToolContext(
            wrapper.name,
            request_id=request_id,
            progress_token=None,  # the chunks are this call's progress: report_progress sends nothing
            sink=notify,
            log_level=meta.get(META_LOG_LEVEL) if modern else "debug",
            modern=modern,
            client_capabilities=meta.get(META_CLIENT_CAPABILITIES) if modern else None,
        )

    async def run() -> dict[str, Any]:
        if token is not None:
            CHUNK_SINK.set(chunk)
        return await wrapper.call(params.get("arguments"), context, deadline=call_deadline())

    started = perf_counter()
    task = asyncio.ensure_future(run())
    task.add_done_callback(lambda _t: channel.close())
    if open_streams is not None:
        open_streams.add(task)
    watch = asyncio.ensure_future(wait_for_disconnect(receive))
    watch.add_done_callback(lambda w: w.cancelled() or task.cancel())
    try:
        await send({"type": "http.response.start", "status": 200, "headers": _STREAM_HEADERS})
        while (frame := await channel.receive()) is not None:
            await send({"type": "http.response.body", "body": frame, "more_body": True})
        if task.cancelled():
            if open_streams is None or not open_streams.ended or watch.done():
                logger.info(
                    "tool '%s': the client left after %d chunk(s); stream stopped", wrapper.name, position
                )
                if on_tool_call is not None:  # a call its client left: counted, not as an error
                    on_tool_call(wrapper.name, False, perf_counter() - started)
                return
            # the agent is stopping: the client gets what was sent and an error result saying why
            logger.warning(
                "tool '%s': the agent is stopping; stream ended after %d chunk(s)", wrapper.name, position
            )
            result = error_result(
                f"Tool '{wrapper.name}' stopped after {position} chunk(s): the agent is shutting down"
            )
        else:
            result = task.result()
        observation.tracer.record_result(result)
        if on_tool_call is not None:
            on_tool_call(wrapper.name, bool(result.get("isError")), perf_counter() - started)
        answer = {"jsonrpc": "2.0", "id": request_id, "result": stamp(result)}
        await send({"type": "http.response.body", "body": _frame(answer)})
    finally:
        watch.cancel()
        if not task.done():
            task.cancel()  # our own request was cancelled: the tool stops with it
            await asyncio.wait((task,))
