"""`mesh stdio`: an MCP server on stdin/stdout for a client that starts commands, bridged to HTTP.

    bridge(url)                  stdin/stdout <-> the MCP endpoint at `url` (the mesh gateway, an agent)
    serve_app(argv, cwd, label)  `mesh run APP` started as a child on a free loopback port, then bridged

The agent stays an HTTP agent (it joins its mesh as `mesh run` makes it); only the client's side is
stdio. The messages are passed through as they are, both ways, by the MCP SDK's own transports (stdio
server, streamable HTTP client). While bridging, file descriptor 1 points at stderr (the SDK's stdio
server does this), so nothing but protocol messages reaches the client's end of the pipe; the child's
log lines go to stderr, which clients keep as the server's log.
"""

from __future__ import annotations

import asyncio
import logging
import re
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import MeshError

__all__ = ["SERVING", "AppDidNotStart", "EndpointUnreachable", "bridge", "run_command", "serve_app"]

logger = logging.getLogger("mesh_framework.stdio")

# The line `mesh run` logs once it serves: `agent 'NAME' (ID) serving http://HOST:PORT/PATH with ...`.
SERVING = re.compile(r"\(\S+\) serving (https?://\S+)")
STOP_GRACE = 20.0
MAX_LINE = 64 * 1024 * 1024  # one message from the client (a line of JSON), at most


class EndpointUnreachable(MeshError):
    """The MCP endpoint `mesh stdio` bridges to cannot be reached."""


class AppDidNotStart(MeshError):
    """`mesh run APP` ended before it served; its own log lines (on stderr) say why."""


async def bridge(url: str) -> None:
    """Pass MCP messages between stdin/stdout and the endpoint at `url` until stdin closes (the client
    left; the answers to what it asked are still passed on) or the endpoint's side ends. An endpoint
    that cannot be reached is an `EndpointUnreachable`."""
    import httpx2

    try:
        await _Bridge(url).run()
    except BaseExceptionGroup as group:
        unreachable, _ = group.split(httpx2.TransportError)
        if unreachable is None:
            raise
        cause = _leaf(unreachable)
        raise EndpointUnreachable(f"cannot reach the MCP endpoint at {url} ({cause})") from None


class _Bridge:
    """Both directions of one bridge, and the client's requests not answered yet."""

    def __init__(self, url: str) -> None:
        import anyio

        self.url = url
        self.pending: set[Any] = set()
        self.answered = anyio.Event()

    async def run(self) -> None:
        import anyio
        from mcp.client.streamable_http import streamable_http_client
        from mcp.server.stdio import stdio_server

        async with (
            stdio_server(stdin=await _stdin_lines()) as (client_read, client_write),
            client_write,
            streamable_http_client(self.url) as (server_read, server_write),
            server_write,
            anyio.create_task_group() as group,
        ):

            async def client_side() -> None:
                await self.from_client(client_read, server_write)
                while self.pending:
                    await self.answered.wait()
                group.cancel_scope.cancel()

            async def server_side() -> None:
                await self.from_server(server_read, client_write)
                group.cancel_scope.cancel()

            group.start_soon(client_side)
            group.start_soon(server_side)

    async def from_client(self, source: Any, sink: Any) -> None:
        from mcp.types import JSONRPCRequest

        async for item in source:
            if isinstance(item, Exception):  # a line that is not JSON-RPC: said, then dropped
                logger.warning("mesh stdio: dropped a line from the client: %s", _first_line(item))
                continue
            if isinstance(item.message, JSONRPCRequest):
                self.pending.add(item.message.id)
            await sink.send(item)

    async def from_server(self, source: Any, sink: Any) -> None:
        import anyio
        from mcp.types import JSONRPCError, JSONRPCResponse

        async for item in source:
            if isinstance(item, Exception):
                logger.warning("mesh stdio: dropped a message from %s: %s", self.url, _first_line(item))
                continue
            await sink.send(item)
            if isinstance(item.message, JSONRPCResponse | JSONRPCError):  # once passed on
                self.pending.discard(item.message.id)
                if not self.pending:
                    self.answered.set()
                    self.answered = anyio.Event()


class _Lines:
    """stdin's lines as the SDK's stdio server iterates them, read on the event loop rather than in a
    thread: a read blocked in a thread cannot be cancelled, so the bridge could not end (the agent gone,
    the endpoint unreachable) before the client wrote again or closed stdin."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader

    def __aiter__(self) -> _Lines:
        return self

    async def __anext__(self) -> str:
        line = await self.reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", "replace")


async def _stdin_lines() -> Any:
    """stdin as `_Lines` when it is a pipe (as clients start servers), else None: the SDK reads it."""
    reader = asyncio.StreamReader(limit=MAX_LINE)
    try:
        await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer
        )
    except (ValueError, OSError):  # a regular file: no pipe transport for it
        return None
    return _Lines(reader)


def _leaf(group: BaseExceptionGroup[Any]) -> BaseException:
    first = group.exceptions[0]
    return _leaf(first) if isinstance(first, BaseExceptionGroup) else first


def _first_line(error: Exception) -> str:
    lines = str(error).splitlines()
    return " ".join(lines[:2]) if lines else type(error).__name__


def run_command(app: str, *, profiles: Sequence[str] = (), config: str | None = None) -> list[str]:
    """`mesh run APP` as `mesh stdio` starts it: this interpreter, loopback, a free port (the app's own
    port may be taken by the same app run in a terminal), and the profiles and settings folder given."""
    argv = [sys.executable, "-m", "mesh_framework.cli", "run", app, "--host", "127.0.0.1", "--port", "0"]
    for profile in profiles:
        argv += ["--profile", profile]
    return [*argv, "--config", config] if config else argv


async def serve_app(argv: Sequence[str], cwd: Path, label: str) -> int:
    """Start `argv` (a `mesh run APP` command line) in `cwd`, its output passed to stderr; once it logs
    that it serves, bridge stdin/stdout to its endpoint. When the client leaves, the agent is stopped
    gracefully (SIGTERM: it leaves the mesh), and killed after `STOP_GRACE` seconds."""
    process = await asyncio.create_subprocess_exec(
        *argv,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=sys.stderr.fileno(),
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    served: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    pump = asyncio.create_task(_pump(process.stderr, served))
    try:
        waiting: asyncio.Future[Any] = asyncio.ensure_future(process.wait())
        await asyncio.wait({served, waiting}, return_when=asyncio.FIRST_COMPLETED)
        if not served.done():
            raise AppDidNotStart(
                f"`mesh run {label}` ended (exit {process.returncode}) before serving; "
                "its lines above say why"
            )
        exited: asyncio.Future[Any] = asyncio.ensure_future(bridge(served.result()))
        await asyncio.wait({exited, waiting}, return_when=asyncio.FIRST_COMPLETED)
        if not exited.done():  # the agent ended first: nothing more to bridge to
            exited.cancel()
            logger.error("mesh stdio: the agent ended (exit %s)", process.returncode)
            return 1
        exited.result()
        return 0
    finally:
        await _stop(process)
        pump.cancel()


async def _pump(stream: asyncio.StreamReader, served: asyncio.Future[Any]) -> None:
    """The child's log lines, to stderr; the first `serving URL` line resolves `served`."""
    while line := await stream.readline():
        text = line.decode("utf-8", "replace")
        sys.stderr.write(text)
        sys.stderr.flush()
        found = SERVING.search(text)
        if found and not served.done():
            served.set_result(found.group(1))


async def _stop(process: asyncio.subprocess.Process) -> None:
    if process.returncode is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), STOP_GRACE)
    except TimeoutError:
        process.kill()
        await process.wait()
