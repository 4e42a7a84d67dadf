"""A tool that takes a `ToolContext`, served as an event stream: the notifications it sends (progress,
log messages, input requests) as they come, then its result, on one response. (A `Stream[str]` tool's
chunks are `streaming.py`'s.)

The stream opens with the first notification, not before: a call that sends none is answered in one
piece (JSON, unless the client accepts only an event stream), and one refused before anything was sent
(an `McpError`: a gateway relaying an agent's JSON-RPC refusal) is answered as that JSON-RPC error, by the
endpoint, with its HTTP status. A refusal after the stream opened is the stream's last message."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from time import perf_counter
from typing import Any

from pydantic_core import to_json

from ..sse import MEDIA_TYPE, encode
from ..tools.context import ToolContext
from ..tools.wrapper import MeshToolWrapper
from .input_round import read_input_round
from .mcp_error import McpError
from .request_state import RequestStateSigner
from .versions import META_CLIENT_CAPABILITIES, META_LOG_LEVEL

__all__ = ["serve_context_stream"]

Send = Callable[[dict[str, Any]], Awaitable[None]]

_SSE_HEADERS = [(b"content-type", MEDIA_TYPE.encode()), (b"cache-control", b"no-cache")]
_JSON_HEADERS = [(b"content-type", b"application/json")]


def _frame(message: dict[str, Any]) -> bytes:
    return encode(to_json(message), event="message")


async def serve_context_stream(
    wrapper: MeshToolWrapper,
    params: dict[str, Any],
    request_id: Any,
    run: Callable[[ToolContext], Awaitable[dict[str, Any]]],
    *,
    modern: bool,
    send: Send,
    signer: RequestStateSigner,
    stamp: Callable[[dict[str, Any]], dict[str, Any]],
    on_result: Callable[[dict[str, Any], float], None],
    sse_only: bool = False,
) -> None:
    """Runs `run` with the call's ToolContext, sending each notification it puts as an SSE message, then
    the result (`stamp`ed for the protocol era); a result with no notification before it is sent whole,
    as JSON unless `sse_only` (the client accepts only an event stream). `on_result(result, started)` is
    told before the result is sent (`started`: perf_counter() when the call began). McpError, with
    nothing sent, for input responses or a request state that cannot be read, and for an McpError `run`
    raised before any notification."""
    meta = params.get("_meta")
    meta = meta if isinstance(meta, dict) else {}
    responses, state = read_input_round(params, wrapper.name, signer)
    queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
    context = ToolContext(
        wrapper.name,
        request_id=request_id,
        progress_token=meta.get("progressToken"),
        sink=queue.put,
        log_level=meta.get(META_LOG_LEVEL) if modern else "debug",
        modern=modern,
        client_capabilities=meta.get(META_CLIENT_CAPABILITIES) if modern else None,
        input_responses=responses,
        request_state=state,
        encode_state=signer.encode,
    )
    started = perf_counter()
    task = asyncio.ensure_future(run(context))
    task.add_done_callback(lambda _t: queue.put_nowait(None))
    opened = False
    while (notification := await queue.get()) is not None:
        if not opened:
            await send({"type": "http.response.start", "status": 200, "headers": _SSE_HEADERS})
            opened = True
        await send({"type": "http.response.body", "body": _frame(notification), "more_body": True})
    try:
        result = task.result()
    except McpError as refused:
        if not opened:
            raise  # nothing sent yet: the endpoint answers the JSON-RPC error
        await send({"type": "http.response.body", "body": _frame(refused.to_wire(request_id))})
        return
    on_result(result, started)
    answer = {"jsonrpc": "2.0", "id": request_id, "result": stamp(result)}
    if opened:
        await send({"type": "http.response.body", "body": _frame(answer)})
    elif sse_only:
        await _whole(send, _frame(answer), _SSE_HEADERS)
    else:
        await _whole(send, to_json(answer), _JSON_HEADERS)


async def _whole(send: Send, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    headers = [*headers, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})
