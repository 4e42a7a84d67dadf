"""The stateless MCP endpoint in process: both protocol eras and every kind of bad input."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest

from mesh_framework import MeshApplication
from mesh_framework.jobs.tools import JOB_TOOLS
from mesh_framework.testing import MeshTestClient, mesh_client

MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
ACCEPT = "application/json, text/event-stream"


@pytest.fixture
async def client() -> AsyncIterator[MeshTestClient]:
    app = MeshApplication.load("starter_app", environ={})
    async with mesh_client(app) as test_client:
        yield test_client


async def post(
    client: MeshTestClient, body: Any, headers: dict[str, str] | None = None, content: bytes | None = None
) -> httpx2.Response:
    base = {"Content-Type": "application/json", "Accept": ACCEPT}
    data = content if content is not None else json.dumps(body).encode()
    return await client.http.post("/mcp", content=data, headers={**base, **(headers or {})})


def modern_headers(method: str, name: str | None = None) -> dict[str, str]:
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if name is not None:
        headers["Mcp-Name"] = name
    return headers


# -- the legacy (handshake-era) stateless path ---------------------------------------------------------


async def test_legacy_bare_tools_list_needs_no_initialize(client: MeshTestClient) -> None:
    response = await post(client, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    names = [t["name"] for t in response.json()["result"]["tools"]]
    assert names == ["greet", "add", "jot", "slow_echo", "ask", "countdown", "whoami", *JOB_TOOLS]
    assert "resultType" not in response.json()["result"]


async def test_legacy_initialize_is_answered_and_negotiates(client: MeshTestClient) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    result = (await post(client, body)).json()["result"]
    assert result["protocolVersion"] == "2025-06-18"
    assert result["serverInfo"] == {"name": "starter", "version": "0.1.0"}
    assert result["capabilities"]["tools"] == {"listChanged": False}
    body["params"]["protocolVersion"] = "1999-01-01"
    assert (await post(client, body)).json()["result"]["protocolVersion"] == "2025-11-25"


async def test_legacy_ping_and_notifications(client: MeshTestClient) -> None:
    assert (await post(client, {"jsonrpc": "2.0", "id": 7, "method": "ping"})).json() == {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {},
    }
    response = await post(client, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert response.status_code == 202 and response.content == b""


async def test_legacy_sse_when_the_client_accepts_only_sse(client: MeshTestClient) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 2, "b": 5}},
    }
    response = await post(client, body, {"Accept": "text/event-stream"})
    assert response.headers["content-type"] == "text/event-stream"
    assert response.text.startswith("event: message\ndata: ")
    message = json.loads(response.text.split("data: ", 1)[1])
    assert message["result"]["structuredContent"] == {"result": 7}


async def test_legacy_tool_call_structured_and_text(client: MeshTestClient) -> None:
    result = await client.call_tool("add", {"a": 40, "b": 2}, modern=False)
    assert result == {
        "content": [{"type": "text", "text": "42"}],
        "structuredContent": {"result": 42},
        "isError": False,
    }


# -- the 2026-07-28 path -------------------------------------------------------------------------------


async def test_modern_discover(client: MeshTestClient) -> None:
    result = await client.result("server/discover")
    assert result["supportedVersions"] == [MODERN]
    assert result["capabilities"]["tools"] == {"listChanged": False}
    assert result["resultType"] == "complete"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"] == {"name": "starter", "version": "0.1.0"}


async def test_modern_list_and_call_carry_result_type_and_server_info(client: MeshTestClient) -> None:
    listed = await client.result("tools/list")
    assert listed["resultType"] == "complete" and listed["ttlMs"] == 0
    assert "io.modelcontextprotocol/serverInfo" in listed["_meta"]
    called = await client.call_tool("add", {"a": 1, "b": 2})
    assert called["structuredContent"] == {"result": 3} and called["resultType"] == "complete"


@pytest.mark.parametrize(
    "method", ["initialize", "ping", "logging/setLevel", "resources/subscribe", "nope/nope"]
)
async def test_modern_methods_that_do_not_exist_are_404(client: MeshTestClient, method: str) -> None:
    response = await post(
        client,
        {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": META}},
        modern_headers(method),
    )
    assert response.status_code == 404
    assert response.json()["error"]["code"] == -32601
    assert response.json()["id"] == 1


async def test_modern_missing_meta_is_rejected(client: MeshTestClient) -> None:
    response = await post(
        client, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, modern_headers("tools/list")
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == -32602
    assert "io.modelcontextprotocol/clientCapabilities" in error["message"]


@pytest.mark.parametrize(
    ("headers", "fragment"),
    [
        ({"MCP-Protocol-Version": MODERN}, "Mcp-Method header is missing"),
        ({"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/list"}, "does not match the request's method"),
        ({"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call"}, "Mcp-Name header is missing"),
        (
            {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tools/call", "Mcp-Name": "greet"},
            "Mcp-Name header (greet) does not match params.name (add)",
        ),
    ],
)
async def test_modern_header_mismatches_are_32020(
    client: MeshTestClient, headers: dict[str, str], fragment: str
) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 9,
        "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 1}, "_meta": META},
    }
    response = await post(client, body, headers)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32020
    assert fragment in response.json()["error"]["message"]


async def test_modern_version_mismatch_between_header_and_meta(client: MeshTestClient) -> None:
    meta = {**META, "io.modelcontextprotocol/protocolVersion": "2025-11-25"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}
    response = await post(client, body, modern_headers("tools/list"))
    assert response.status_code == 400 and response.json()["error"]["code"] == -32020


async def test_unsupported_version_is_32022_with_the_supported_list(client: MeshTestClient) -> None:
    meta = {**META, "io.modelcontextprotocol/protocolVersion": "2026-06-18"}
    body = {"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {"_meta": meta}}
    response = await post(client, body, {"MCP-Protocol-Version": "2026-06-18", "Mcp-Method": "tools/list"})
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": -32022,
        "message": "Unsupported protocol version: 2026-06-18",
        "data": {"supported": [MODERN], "requested": "2026-06-18"},
    }


async def test_modern_envelope_without_the_header_is_a_mismatch(client: MeshTestClient) -> None:
    response = await post(
        client, {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
    )
    assert response.status_code == 200  # legacy path: JSON-RPC errors ride on 200
    assert response.json()["error"]["code"] == -32020
    assert "MCP-Protocol-Version header is missing" in response.json()["error"]["message"]


async def test_duplicated_routing_header_is_a_mismatch(client: MeshTestClient) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
    raw = [
        ("content-type", "application/json"),
        ("accept", ACCEPT),
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "tools/list"),
        ("mcp-method", "tools/list"),
    ]
    response = await client.http.post("/mcp", content=json.dumps(body).encode(), headers=raw)
    assert response.status_code == 400 and response.json()["error"]["code"] == -32020


# -- bad input, both eras ------------------------------------------------------------------------------


async def test_malformed_json_is_32700(client: MeshTestClient) -> None:
    response = await post(client, None, content=b'{"jsonrpc": "2.0", "id": 1, "method": ')
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32700
    assert response.json()["id"] is None


@pytest.mark.parametrize(
    "body",
    [
        [{"jsonrpc": "2.0", "id": 1, "method": "ping"}],
        "text",
        {"id": 1},
        {"jsonrpc": "1.0", "id": 1, "method": "ping"},
    ],
)
async def test_invalid_requests_are_32600(client: MeshTestClient, body: Any) -> None:
    response = await post(client, body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32600


async def test_params_must_be_an_object(client: MeshTestClient) -> None:
    response = await post(client, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": [1]})
    assert response.json()["error"]["code"] == -32602


@pytest.mark.parametrize("modern", [True, False])
async def test_unknown_tool_names_it_and_lists_the_tools(client: MeshTestClient, modern: bool) -> None:
    response = await client.request(
        "tools/call", {"name": "nope", "arguments": {}}, modern=modern, name="nope"
    )
    assert response.status_code == (400 if modern else 200)
    error = response.json()["error"]
    assert error["code"] == -32602
    available = ", ".join(
        sorted([*JOB_TOOLS, "add", "ask", "countdown", "greet", "jot", "slow_echo", "whoami"])
    )
    assert error["message"] == f"Unknown tool 'nope'. Available tools: {available}"


@pytest.mark.parametrize("modern", [True, False])
async def test_wrong_argument_types_are_is_error_with_field_messages(
    client: MeshTestClient, modern: bool
) -> None:
    result = await client.call_tool("add", {"a": "one", "b": 2}, modern=modern)
    assert result["isError"] is True
    assert "a: Input should be a valid integer" in result["content"][0]["text"]


async def test_arguments_must_be_an_object(client: MeshTestClient) -> None:
    response = await client.request("tools/call", {"name": "add", "arguments": [1, 2]}, modern=False)
    assert response.json()["error"]["code"] == -32602


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT"])
async def test_other_http_methods_are_405(client: MeshTestClient, method: str) -> None:
    response = await client.http.request(method, "/mcp")
    assert response.status_code == 405
    assert response.headers["allow"] == "POST"


async def test_wrong_content_type_is_415(client: MeshTestClient) -> None:
    response = await post(
        client, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"Content-Type": "text/plain"}
    )
    assert response.status_code == 415
    assert "Content-Type must be application/json" in response.json()["error"]["message"]


async def test_unacceptable_accept_is_406(client: MeshTestClient) -> None:
    response = await post(client, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"Accept": "text/html"})
    assert response.status_code == 406


async def test_oversized_body_is_413(client: MeshTestClient) -> None:
    big = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x" * (5 * 1024 * 1024)}}
    )
    response = await post(client, None, content=big.encode())
    assert response.status_code == 413
    assert "server.max_body_bytes" in response.json()["error"]["message"]


async def test_foreign_host_and_origin_are_refused_on_loopback(client: MeshTestClient) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert (await post(client, body, {"Host": "evil.example.com"})).status_code == 421
    assert (await post(client, body, {"Origin": "http://evil.example.com"})).status_code == 403
    assert (
        await post(client, body, {"Host": "localhost:8080", "Origin": "http://localhost:3000"})
    ).status_code == 200


async def test_health_endpoints(client: MeshTestClient) -> None:
    probes = (("/health", "UP"), ("/ready", "ready"), ("/livez", "alive"), ("/startupz", "started"))
    for path, status in probes:
        response = await client.http.get(path)
        assert response.status_code == 200
        assert response.json()["status"] == status
        assert response.json()["agent"] == "starter"
