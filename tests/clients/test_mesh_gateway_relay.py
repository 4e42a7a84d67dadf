"""What `MeshGateway` relays of an agent's answer, against a stub agent on 127.0.0.1 that answers the way
other MCP servers may: a streamed tool's final result with structured content, a refusal of a tool it
does not have. The gateway runs in process, given a registry listing directly (no registry)."""

from __future__ import annotations

import json
import socketserver
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import httpx2
import pytest

from mesh_framework.config.settings import MeshSettings
from mesh_framework.mesh_gateway import MeshGateway
from mesh_framework.testing.client import build_request

pytestmark = pytest.mark.timeout(60)

FINAL = {"total": 2, "unit": "chunks"}


class StubAgent(socketserver.ThreadingTCPServer):
    """An MCP endpoint serving `ticks` (a stream: two progress chunks, then a result with structured
    content); any other tool is refused with -32602, HTTP 400, as a 2026-07-28 server refuses it."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict[str, Any]] = []

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(socketserver.StreamRequestHandler):
    server: StubAgent

    def handle(self) -> None:
        length = 0
        while (line := self.rfile.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        request = json.loads(self.rfile.read(length))
        self.server.requests.append(request)
        params = request["params"]
        if params["name"] != "ticks":
            error = {
                "code": -32602,
                "message": f"Unknown tool '{params['name']}'",
                "data": {"known": ["ticks"]},
            }
            self._send(
                400, "application/json", json.dumps({"jsonrpc": "2.0", "id": request["id"], "error": error})
            )
            return
        token = params["_meta"]["progressToken"]
        frames = [
            {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": token, "progress": i, "message": text},
            }
            for i, text in enumerate(("tick ", "tock "))
        ]
        result = {
            "content": [{"type": "text", "text": "tick tock "}],
            "structuredContent": FINAL,
            "isError": False,
        }
        frames.append({"jsonrpc": "2.0", "id": request["id"], "result": result})
        self._send(
            200, "text/event-stream", "".join(f"event: message\ndata: {json.dumps(f)}\n\n" for f in frames)
        )

    def _send(self, status: int, media_type: str, body: str) -> None:
        data = body.encode()
        head = f"HTTP/1.1 {status} X\r\ncontent-type: {media_type}\r\ncontent-length: {len(data)}\r\n"
        self.wfile.write(head.encode() + b"connection: close\r\n\r\n" + data)


@contextmanager
def stub_agent() -> Iterator[StubAgent]:
    stub = StubAgent()
    serving = threading.Thread(target=stub.serve_forever, daemon=True)
    serving.start()
    try:
        yield stub
    finally:
        stub.shutdown()
        stub.server_close()
        serving.join(timeout=10)


def listing(endpoint: str) -> list[dict[str, Any]]:
    schema = {"type": "object", "properties": {}}
    tools = [
        {
            "function_name": "ticks",
            "name": "ticks",
            "input_schema": schema,
            "kwargs": {"stream_type": "text"},
        },
        {"function_name": "vanished", "name": "vanished", "input_schema": schema},
    ]
    return [
        {"id": "stub-1", "name": "stub", "endpoint": endpoint, "status": "healthy", "capabilities": tools}
    ]


@pytest.fixture
async def gateway() -> AsyncIterator[tuple[StubAgent, httpx2.AsyncClient]]:
    with stub_agent() as stub:
        served = MeshGateway(MeshSettings(), registry_url="http://127.0.0.1:9")  # never read: apply is
        await served.apply(listing(stub.endpoint))
        transport = httpx2.ASGITransport(app=served.endpoint)
        try:
            async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
                yield stub, http
        finally:
            await served.proxies.aclose()


async def call(http: httpx2.AsyncClient, params: dict[str, Any], *, modern: bool = True) -> httpx2.Response:
    body, headers = build_request("tools/call", params, modern=modern, name=None)
    return await http.post("/mcp", json=body, headers=headers)


def messages(response: httpx2.Response) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]


async def test_a_streamed_tools_final_result_keeps_its_structured_content(
    gateway: tuple[StubAgent, httpx2.AsyncClient],
) -> None:
    _stub, http = gateway
    answer = await call(http, {"name": "ticks", "arguments": {}, "_meta": {"progressToken": "p"}})
    sent = messages(answer)
    chunks = [m["params"] for m in sent if m.get("method") == "notifications/progress"]
    assert chunks == [
        {"progressToken": "p", "progress": 0.0, "message": "tick "},
        {"progressToken": "p", "progress": 1.0, "message": "tock "},
    ]
    result = sent[-1]["result"]
    assert result["structuredContent"] == FINAL
    assert result["content"] == [{"type": "text", "text": "tick tock "}] and result["isError"] is False


@pytest.mark.parametrize("modern", [True, False], ids=["2026-07-28", "legacy"])
async def test_a_tool_the_agent_refuses_is_refused_to_the_client_with_its_error(
    gateway: tuple[StubAgent, httpx2.AsyncClient], modern: bool
) -> None:
    _stub, http = gateway
    answer = await call(http, {"name": "vanished", "arguments": {}}, modern=modern)
    assert answer.status_code == (400 if modern else 200)
    assert answer.headers["content-type"] == "application/json"
    body = answer.json()
    assert body["error"] == {
        "code": -32602,
        "message": "Unknown tool 'vanished'",
        "data": {"known": ["ticks"]},
    }
    assert body["id"] is not None
