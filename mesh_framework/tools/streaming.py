"""The run-time side of `Stream[str]` tools: a stream tool's body as a buffered call, and the bounded
channel its chunks travel through to whoever streams them (the MCP endpoint, an in-process proxy).

A stream tool's wrapper calls `joined(body)` instead of the body: it runs the generator to its end and
returns the chunks joined, so the buffered call path serves a stream tool unchanged. When the call is
streamed, the caller puts a sink in `CHUNK_SINK` first; each chunk is handed to it as it is yielded.
"""

from __future__ import annotations

import asyncio
import inspect
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from ..errors import ToolExecutionError

__all__ = ["CHUNK_SINK", "STREAM_BUFFER", "ChunkChannel", "ChunkSink", "joined"]

ChunkSink = Callable[[str], Awaitable[None]]

# Chunks queued between a stream tool and its reader before the tool waits for the reader.
STREAM_BUFFER = 16

# Where the stream tool called next sends its chunks; read (and cleared) once when its body starts, so
# the tools it calls in turn do not write into its stream.
CHUNK_SINK: ContextVar[ChunkSink | None] = ContextVar("mesh_chunk_sink", default=None)


def joined(body: Callable[..., Any], tool: str) -> Callable[..., Awaitable[str]]:
    """`body` (an async generator function, or an async function returning an async iterator) as an
    async function returning every chunk joined, each handed to the current `CHUNK_SINK` when yielded."""

    async def run(**kwargs: Any) -> str:
        sink = CHUNK_SINK.get()
        if sink is not None:
            CHUNK_SINK.set(None)
        produced = body(**kwargs)
        if inspect.isawaitable(produced):
            produced = await produced
        if not hasattr(produced, "__anext__"):
            raise ToolExecutionError(
                f"Tool '{tool}' is declared -> Stream[str] but returned {type(produced).__name__}, "
                "not an async iterator; write it as an async generator (async def ... yield)"
            )
        parts: list[str] = []
        try:
            async for chunk in produced:
                if not isinstance(chunk, str):
                    raise ToolExecutionError(
                        f"Tool '{tool}' yielded {type(chunk).__name__} {chunk!r}; "
                        "a Stream[str] tool yields str"
                    )
                parts.append(chunk)
                if sink is not None:
                    await sink(chunk)
        finally:
            close = getattr(produced, "aclose", None)
            if close is not None:
                await close()
        return "".join(parts)

    return run


class ChunkChannel:
    """A bounded, single-reader channel: `send` waits while `size` items are queued (backpressure on the
    producer), `close` never waits, and `receive` returns None once closed and drained."""

    __slots__ = ("_closed", "_items", "_reader", "_size", "_writers")

    def __init__(self, size: int = STREAM_BUFFER) -> None:
        self._items: deque[Any] = deque()
        self._size = size
        self._closed = False
        self._reader: asyncio.Future[None] | None = None
        self._writers: deque[asyncio.Future[None]] = deque()

    async def send(self, item: Any) -> None:
        while len(self._items) >= self._size and not self._closed:
            waiter = asyncio.get_running_loop().create_future()
            self._writers.append(waiter)
            try:
                await waiter
            finally:
                if waiter in self._writers:
                    self._writers.remove(waiter)
        self._items.append(item)
        self._wake_reader()

    def close(self) -> None:
        self._closed = True
        self._wake_reader()
        while self._writers:
            writer = self._writers.popleft()
            if not writer.done():
                writer.set_result(None)

    async def receive(self) -> Any:
        while not self._items:
            if self._closed:
                return None
            self._reader = asyncio.get_running_loop().create_future()
            try:
                await self._reader
            finally:
                self._reader = None
        item = self._items.popleft()
        if self._writers:
            writer = self._writers.popleft()
            if not writer.done():
                writer.set_result(None)
        return item

    def _wake_reader(self) -> None:
        reader = self._reader
        if reader is not None and not reader.done():
            reader.set_result(None)

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Any]:
        while (item := await self.receive()) is not None:
            yield item
