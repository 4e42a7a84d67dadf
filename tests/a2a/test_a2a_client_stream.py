"""`A2aClient.stream` reads a peer's event stream with `mesh_framework.sse`: an event whose data is not a
JSON object is an `A2aError` naming the peer, not an AttributeError from deep inside the client."""

from __future__ import annotations

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from mesh_framework.a2a import A2aClient, A2aError
from mesh_framework.sse import encode

pytestmark = pytest.mark.timeout(30)


def peer_streaming(*frames: bytes) -> Starlette:
    async def endpoint(request: Request) -> Response:
        await request.body()
        return Response(b"".join(frames), media_type="text/event-stream")

    return Starlette(routes=[Route("/", endpoint, methods=["POST"])])


def client_of(app: Starlette) -> A2aClient:
    def http() -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://peer")

    return A2aClient("peer", url="http://peer/", http=http, dialect="mcp-mesh")


async def test_an_event_whose_data_is_not_an_object_is_an_a2a_error() -> None:
    client = client_of(peer_streaming(b": hello\r\n\r\n", encode("[1, 2]")))
    with pytest.raises(A2aError, match="peer 'peer' .* sent an unreadable stream event: .*not a JSON object"):
        async for _event in client.stream("hi"):
            pass


async def test_a_peer_error_event_is_an_a2a_error_with_its_message() -> None:
    error = '{"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "the skill broke"}}'
    client = client_of(peer_streaming(encode(error).replace(b"\n", b"\r")))  # CR line endings read the same
    with pytest.raises(A2aError, match="the skill broke"):
        async for _event in client.stream("hi"):
            pass
