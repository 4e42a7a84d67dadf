"""The pooled client's network layer (`mesh/asyncio_network.py`) on real loopback sockets: requests in one
write, timeouts and errors as httpx2's, large bodies, closed keep-alive connections."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx2
import pytest

from mesh_framework.mesh.asyncio_network import WRITE_BUFFER, AsyncioStream
from mesh_framework.mesh.http_pool import build_http_client

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _server(handler: Handler) -> AsyncIterator[str]:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.close()


async def _read_request(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    return head, await reader.readexactly(length)


def _answer(body: bytes, *, close: bool = False) -> bytes:
    extra = b"connection: close\r\n" if close else b""
    return b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n%s\r\n%s" % (len(body), extra, body)


@pytest.fixture
async def echo() -> AsyncIterator[str]:
    """A keep-alive server answering each request with its body's length."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            try:
                _head, body = await _read_request(reader)
            except (asyncio.IncompleteReadError, ConnectionError):
                break
            writer.write(_answer(str(len(body)).encode()))
            await writer.drain()
        writer.close()

    async for url in _server(handle):
        yield url


async def test_the_pooled_client_runs_on_asyncio_streams_and_reuses_its_connection(
    echo: str,
) -> None:
    url = echo
    async with build_http_client() as http:
        first = await http.post(url, content=b"abc")
        second = await http.post(url, content=b"abcdef")
    assert (first.text, second.text) == ("3", "6")
    stream = first.extensions["network_stream"]
    assert isinstance(stream, AsyncioStream)
    assert second.extensions["network_stream"] is stream  # kept alive, reused


class _RecordingWriter:
    """A stream writer that records what it is asked to write (and writes it)."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(data)
        self.writer.write(data)

    def __getattr__(self, name: str) -> object:
        return getattr(self.writer, name)


async def test_a_request_goes_out_in_one_write(echo: str) -> None:
    """What httpcore2 writes (head, then body) waits for its read of the answer, then goes out at once."""
    url = echo
    port = int(url.rsplit(":", 1)[1])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    recorder = _RecordingWriter(writer)
    stream = AsyncioStream(reader, recorder)  # type: ignore[arg-type]
    head = b"POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\n\r\n"
    await stream.write(head)
    await stream.write(b"hello")
    assert recorder.writes == []
    answer = await stream.read(65536, timeout=5)
    assert recorder.writes == [head + b"hello"]
    assert answer.endswith(b"\r\n\r\n5")
    await stream.aclose()


async def test_a_body_larger_than_the_write_buffer_is_sent_whole(echo: str) -> None:
    url = echo
    size = 4 * WRITE_BUFFER + 17

    async def body() -> AsyncIterator[bytes]:
        for _ in range(size // 1000):
            yield b"y" * 1000
        yield b"y" * (size % 1000)

    async with build_http_client() as http:
        answer = await http.post(url, content=body(), headers={"content-length": str(size)})
    assert answer.text == str(size)


async def test_a_silent_server_is_a_read_timeout() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        await asyncio.sleep(5)
        writer.close()

    async for url in _server(silent):
        async with build_http_client() as http:
            with pytest.raises(httpx2.ReadTimeout):
                await http.post(url, content=b"{}", timeout=0.2)


async def test_a_refused_connection_is_a_connect_error() -> None:
    closed = [url async for url in _server(lambda r, w: asyncio.sleep(0))]  # nothing listens there now
    async with build_http_client() as http:
        with pytest.raises(httpx2.ConnectError):
            await http.post(closed[0], content=b"{}")


async def test_a_connection_the_server_closed_while_idle_is_not_reused() -> None:
    """The server closes each connection after answering (without saying so): the pool sees the end and
    opens a new connection for the next request instead of writing into the closed one."""
    connections = 0
    closed = asyncio.Event()

    async def once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await _read_request(reader)
        writer.write(_answer(b"ok"))
        await writer.drain()
        writer.close()
        await writer.wait_closed()
        closed.set()

    async for url in _server(once):
        async with build_http_client(keepalive_expiry=30.0) as http:
            for _ in range(3):
                closed.clear()
                answer = await http.post(url, content=b"{}")
                assert answer.text == "ok"
                await asyncio.wait_for(closed.wait(), 5)  # the server closed while the connection is idle
    assert connections == 3
