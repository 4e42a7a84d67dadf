"""A fake vendor API on 127.0.0.1 (ephemeral port) that plays scripted turns and records every request.

    with fake_openai([tool_call("add", {"a": 1, "b": 2}), text("3")]) as server:
        model = OpenAIChatModel("gpt-4o-mini", base_url=server.base_url, api_key="test-key")
        ...
        server.requests[1]["messages"][-1]  # the tool result the client sent back

uvicorn runs in a background thread with its own loop, so sync and async tests can both use it; turns are
played in order (`server.add(...)` appends), and a request past the script gets a 400 that names it.
A request with `stream: true` gets the turn as the vendor's event stream (streaming.py); `left_early`
is set when a client goes away before a stream ended.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from .streaming import error_event, sse_events
from .turns import Received, Script, Turn
from .wire import ANTHROPIC, OPENAI, Wire

__all__ = ["FakeLlmServer", "fake_anthropic", "fake_openai"]


class FakeLlmServer:
    """Serves `wire` (OpenAI or Anthropic) with `script`; `base_url` is what the vendor SDK takes."""

    def __init__(self, wire: Wire, script: Iterable[Script] = ()) -> None:
        self.wire = wire
        self.received: list[Received] = []
        self._script: list[Script] = list(script)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.left_early = threading.Event()
        self._socket = socket.socket()
        self._socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no delayed-ACK wait per answer
        self._socket.bind(("127.0.0.1", 0))
        self.port: int = self._socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.base_url = self.url + wire.base_path
        routes = [Route(path, self._handle, methods=["POST"]) for path in wire.paths]
        config = uvicorn.Config(
            Starlette(routes=routes), log_level="warning", access_log=False, lifespan="off"
        )
        self._server = _QuickServer(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True, name=f"fake-{wire.name}"
        )

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The JSON bodies received, in order."""
        return [received.body for received in self.received]

    @property
    def remaining(self) -> int:
        return len(self._script)

    def add(self, *turns: Script) -> None:
        with self._lock:
            self._script.extend(turns)

    def start(self) -> FakeLlmServer:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"fake {self.wire.name} server did not start")
            time.sleep(0.005)
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._server.should_exit = True
        self._thread.join(10)
        self._socket.close()

    def __enter__(self) -> FakeLlmServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    async def _handle(self, request: Request) -> Response:
        received = Received(request.url.path, dict(request.headers), await request.json())
        with self._lock:
            self.received.append(received)
            number = len(self.received)
            entry = self._script.pop(0) if self._script else None
        if entry is None:
            message = f"fake {self.wire.name} server: no scripted turn left for request {number}"
            return JSONResponse(self.wire.error(400, message), 400, {"x-should-retry": "false"})
        turn: Turn = entry if isinstance(entry, Turn) else entry(received)
        if turn.delay:
            await self._sleep(turn.delay)
        if turn.status != 200:
            return JSONResponse(self.wire.error(turn.status, turn.error), turn.status, dict(turn.headers))
        if received.body.get("stream"):
            events = self._stream(turn, received.body, number)
            return StreamingResponse(events, media_type="text/event-stream", headers=dict(turn.headers))
        return JSONResponse(self.wire.answer(turn, received.body, number), headers=dict(turn.headers))

    async def _stream(self, turn: Turn, body: dict[str, Any], number: int) -> AsyncIterator[str]:
        try:
            for frame in sse_events(self.wire.name, turn, body, number):
                if frame is None:
                    if turn.fail == "drop":
                        raise _DroppedByScript(f"fake {self.wire.name} server drops stream {number}")
                    yield error_event(self.wire.name, f"fake error after {turn.fail_after} chunks")
                    return
                if frame == "hold":
                    await self._sleep(3600)
                    return
                if frame == "pause":
                    await self._wait(turn.resume)
                    continue
                yield frame
        except (asyncio.CancelledError, GeneratorExit):
            self.left_early.set()
            raise

    async def _wait(self, resume: threading.Event | None) -> None:
        """Waits (at most 60 s) until the test sets `resume`, or the server stops."""
        deadline = time.monotonic() + 60
        while resume is not None and not resume.is_set() and not self._stopping.is_set():
            if time.monotonic() > deadline:
                raise _DroppedByScript(f"fake {self.wire.name} server: the test never resumed the stream")
            await asyncio.sleep(0.002)

    async def _sleep(self, seconds: float) -> None:
        """Sleeps, but wakes when the server stops, so a delayed turn never holds up the shutdown."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not self._stopping.is_set():
            await asyncio.sleep(0.01)


class _DroppedByScript(Exception):
    """Raised in a stream to make uvicorn drop the connection mid-body (as a broken upstream does)."""


class _QuickServer(uvicorn.Server):
    """uvicorn that stops in milliseconds: it polls `should_exit` often and skips the grace period."""

    async def main_loop(self) -> None:
        while not self.should_exit:
            await asyncio.sleep(0.005)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        deadline = time.monotonic() + 2
        while self.server_state.connections and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        for task in self.server_state.tasks:
            task.cancel()


@contextmanager
def fake_openai(script: Iterable[Script] = ()) -> Iterator[FakeLlmServer]:
    """An OpenAI Chat Completions API; `base_url` ends in `/v1` as the SDK expects."""
    with FakeLlmServer(OPENAI, script) as server:
        yield server


@contextmanager
def fake_anthropic(script: Iterable[Script] = ()) -> Iterator[FakeLlmServer]:
    """An Anthropic Messages API (`POST /v1/messages`); `base_url` is the server's root."""
    with FakeLlmServer(ANTHROPIC, script) as server:
        yield server
