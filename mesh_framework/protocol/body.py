"""Reading a request body within limits: size (`server.max_body_bytes`) and time (`server.body_timeout`).

A body over the limit is answered 413 as soon as it is known to be (from `Content-Length`, or once more
than the limit has arrived) with `Connection: close`; the agent's HTTP protocol then keeps reading and
dropping the rest for up to `server.body_timeout` before it closes (`http_protocol.py`), so a client that
writes its whole body before reading (Python's urllib, most HTTP libraries) reads the 413 instead of a
connection reset, whatever the body's size. A client that sends its body too slowly (a slow-loris sender)
is answered 408 once `server.body_timeout` has passed, and the connection closed.

A middleware in front of the endpoint that must see the JSON-RPC message (MCP authorization's per-tool
scopes) reads it with the same limits and leaves a `BodyRead` in the scope under `BODY_READ`: the
endpoint takes the message from there instead of reading and parsing the body again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic_core import from_json

from ..deadline import Expired, within

__all__ = ["BODY_READ", "BodyRead", "BodyRefused", "read_body"]

Receive = Callable[[], Awaitable[dict[str, Any]]]


class BodyRefused(Exception):
    """The body was not accepted: the HTTP status to answer, the reason, and whether to close."""

    def __init__(self, status: int, message: str, *, close: bool) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.close = close


BODY_READ = "mesh.body_read"
"""The ASGI scope key of a `BodyRead` left by a middleware that read the body before the endpoint."""


class BodyRead:
    """A request body read and parsed once: `result()` is the JSON message, or raises what reading
    (`BodyRefused`) or parsing (`ValueError`) it raised. `body` is what was read (empty when refused)."""

    __slots__ = ("body", "error", "message")

    def __init__(self, body: bytes, message: Any = None, error: Exception | None = None) -> None:
        self.body = body
        self.message = message
        self.error = error

    @classmethod
    async def of(cls, receive: Receive, *, max_bytes: int, timeout: float, declared: int = -1) -> BodyRead:
        """Read the body within the limits (as `read_body`) and parse it; never raises for bad input."""
        try:
            body = await read_body(receive, max_bytes=max_bytes, timeout=timeout, declared=declared)
        except BodyRefused as refused:
            return cls(b"", error=refused)
        try:
            return cls(body, from_json(body))
        except ValueError as exc:
            return cls(body, error=exc)

    def result(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.message


async def read_body(receive: Receive, *, max_bytes: int, timeout: float, declared: int = -1) -> bytes:
    """The whole body; raises BodyRefused (413 over `max_bytes`, 408 when slower than `timeout`)."""
    try:
        return await within(timeout, _read(receive, max_bytes, declared))
    except Expired:
        raise BodyRefused(
            408,
            f"Request body not received within {timeout:g} s (server.body_timeout); send it faster",
            close=True,
        ) from None


async def _read(receive: Receive, max_bytes: int, declared: int) -> bytes:
    if declared > max_bytes:
        raise _too_large(max_bytes)
    chunks: list[bytes] = []
    size = 0
    more = True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            break  # the client went away; whatever came is answered (nobody reads it)
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        if size > max_bytes:
            raise _too_large(max_bytes)  # the rest is read and dropped by the protocol, after the 413
        chunks.append(chunk)
        more = message.get("more_body", False)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _too_large(max_bytes: int) -> BodyRefused:
    return BodyRefused(
        413,
        f"Request body exceeds the limit of {max_bytes} bytes (server.max_body_bytes); send less, "
        "or raise the limit",
        close=True,
    )
