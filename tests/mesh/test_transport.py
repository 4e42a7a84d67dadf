"""The client transport's negotiation: modern, -32022 retry, draft codes, legacy fallback, SSE answers."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from mesh_framework import MeshApplication
from mesh_framework.mesh.transport import LEGACY, McpTransport, ProviderUnreachable, RemoteError


class Peer:
    """A scripted MCP server: records requests, answers per protocol version header."""

    def __init__(
        self,
        *,
        accepts: set[str | None],
        reject_code: int = -32022,
        sse: bool = False,
        supported: list[str] | None = None,
        plain_400: bool = False,
    ) -> None:
        self.accepts = accepts
        self.reject_code = reject_code
        self.sse = sse
        self.supported = supported or ["2025-06-18"]
        self.plain_400 = plain_400
        self.seen: list[tuple[str | None, dict[str, Any]]] = []

    async def endpoint(self, request: Request) -> Response:
        body = await request.json()
        version = request.headers.get("mcp-protocol-version")
        self.seen.append((version, body))
        if version not in self.accepts:
            if self.plain_400:
                return JSONResponse(
                    {
                        "jsonrpc": "2.0",
                        "id": body["id"],
                        "error": {"code": -32600, "message": "Bad Request: Unsupported protocol version"},
                    },
                    status_code=400,
                )
            return JSONResponse(
                {
                    "jsonrpc": "2.0",
                    "id": body["id"],
                    "error": {
                        "code": self.reject_code,
                        "message": "Unsupported protocol version",
                        "data": {"supported": self.supported, "requested": version},
                    },
                },
                status_code=400,
            )
        message = {
            "jsonrpc": "2.0",
            "id": body["id"],
            "result": {
                "content": [{"type": "text", "text": "5"}],
                "structuredContent": {"result": 5},
                "isError": False,
            },
        }
        if self.sse:
            notification = {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info"}}
            text = (
                f"event: message\r\ndata: {json.dumps(notification)}\r\n\r\n"
                f"event: message\r\ndata: {json.dumps(message)}\r\n\r\n"
            )
            return Response(text, media_type="text/event-stream")
        return JSONResponse(message)


@pytest.fixture
async def http() -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient() as client:
        yield client


def transport_for(peer: Peer) -> McpTransport:
    app = Starlette(routes=[Route("/mcp", peer.endpoint, methods=["POST"])])
    client = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://peer")
    return McpTransport(client, client_name="test", client_version="1")


async def test_modern_first_against_our_own_endpoint() -> None:
    app = MeshApplication.load("starter_app", environ={})
    asgi = app.build()
    client = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=asgi), base_url="http://127.0.0.1")
    transport = McpTransport(client, client_name="t", client_version="1")
    result = await transport.request(
        "http://127.0.0.1/mcp", "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}
    )
    assert result["structuredContent"] == {"result": 3}
    assert result["resultType"] == "complete"  # it really took the 2026-07-28 path
    assert transport.era("http://127.0.0.1/mcp") == "2026-07-28"
    await client.aclose()


async def test_unsupported_version_retries_once_with_the_best_offer() -> None:
    peer = Peer(accepts={None}, supported=["2025-03-26", "2025-11-25"])
    transport = transport_for(peer)
    result = await transport.request("http://peer/mcp", "tools/call", {"name": "add", "arguments": {}})
    assert result["structuredContent"] == {"result": 5}
    assert [v for v, _ in peer.seen] == ["2026-07-28", None]
    assert "_meta" in peer.seen[0][1]["params"] and "_meta" not in peer.seen[1][1]["params"]
    assert transport.era("http://peer/mcp") == LEGACY
    await transport.request("http://peer/mcp", "tools/list")
    assert [v for v, _ in peer.seen] == ["2026-07-28", None, None]  # the choice is remembered


@pytest.mark.parametrize("code", [-32004, -32001])
async def test_draft_codes_are_negotiation_signals_too(code: int) -> None:
    peer = Peer(accepts={None}, reject_code=code)
    transport = transport_for(peer)
    await transport.request("http://peer/mcp", "tools/list")
    assert [v for v, _ in peer.seen] == ["2026-07-28", None]


async def test_a_400_without_a_modern_error_falls_back_to_legacy_with_both_accept_types() -> None:
    peer = Peer(accepts={None}, plain_400=True, sse=True)
    transport = transport_for(peer)
    result = await transport.request("http://peer/mcp", "tools/call", {"name": "add", "arguments": {}})
    assert result["structuredContent"] == {"result": 5}  # read from an event stream, notification skipped
    assert [v for v, _ in peer.seen] == ["2026-07-28", None]


async def test_no_second_retry_when_the_retry_fails_too() -> None:
    peer = Peer(accepts=set(), supported=["2026-07-28"])
    transport = transport_for(peer)
    with pytest.raises(RemoteError, match="Unsupported protocol version"):
        await transport.request("http://peer/mcp", "tools/list")
    assert len(peer.seen) == 2


async def test_connection_refused_is_provider_unreachable(http: httpx2.AsyncClient) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    transport = McpTransport(http, client_name="t", client_version="1")
    with pytest.raises(ProviderUnreachable):
        await transport.request(f"http://127.0.0.1:{port}/mcp", "tools/list")


async def test_an_event_stream_answer_keeps_unicode_line_separators_in_its_json() -> None:
    """An event stream splits lines on CR and LF only: U+2028, U+0085 or a form feed raw in a JSON
    string (JSON allows them unescaped) are part of the data line, not line breaks."""
    text = "a\u2028b\x85c\x0cd"

    async def endpoint(request: Request) -> Response:
        body = await request.json()
        message = {
            "jsonrpc": "2.0",
            "id": body["id"],
            "result": {"content": [{"type": "text", "text": text}]},
        }
        raw = json.dumps(message, ensure_ascii=False)
        return Response(f"event: message\r\ndata: {raw}\r\n\r\n".encode(), media_type="text/event-stream")

    app = Starlette(routes=[Route("/mcp", endpoint, methods=["POST"])])
    client = httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://peer")
    transport = McpTransport(client, client_name="test", client_version="1")
    result = await transport.request("http://peer/mcp", "tools/call", {"name": "echo", "arguments": {}})
    assert result["content"] == [{"type": "text", "text": text}]
    await client.aclose()


@pytest.mark.parametrize("reset", [False, True], ids=["closed", "reset"])
@pytest.mark.parametrize("direct", [False, True], ids=["httpx2", "direct"])
async def test_a_peer_gone_after_taking_the_request_is_connection_lost(
    http: httpx2.AsyncClient, reset: bool, direct: bool
) -> None:
    """A peer that reads the whole request, then closes or resets the connection without an answer (a
    process killed mid-request) is ConnectionLost, a RemoteError, not ProviderUnreachable: it went away
    after it took the request, which may or may not have been processed."""
    import asyncio
    import socket
    import struct

    from mesh_framework.mesh.direct_http import DirectHttp
    from mesh_framework.mesh.transport import ConnectionLost

    taken = asyncio.Event()

    async def take_then_go(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = re.search(rb"(?i)content-length: *(\d+)", head)
        await reader.readexactly(int(length.group(1)) if length else 0)
        if reset:
            writer.get_extra_info("socket").setsockopt(
                socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
            )
        writer.close()
        taken.set()

    server = await asyncio.start_server(take_then_go, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    lean = DirectHttp() if direct else None
    transport = McpTransport(http, client_name="t", client_version="1", direct=lean)
    try:
        with pytest.raises(ConnectionLost) as lost:
            await transport.request(f"http://127.0.0.1:{port}/mcp", "tools/call", {"name": "x"})
    finally:
        server.close()
        await server.wait_closed()
        if lean is not None:
            lean.close()
    assert taken.is_set()
    assert isinstance(lost.value, RemoteError) and not lost.value.timed_out
    assert lost.value.endpoint == f"http://127.0.0.1:{port}/mcp"
    assert str(lost.value).startswith(f"http://127.0.0.1:{port}/mcp: connection failed during tools/call (")
