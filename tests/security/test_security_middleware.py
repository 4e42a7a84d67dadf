"""`McpAuthorization` on its own, in process, against odd input: malformed credentials, bodies that are not
JSON, bodies split in chunks or over the limit, headers that disagree with the body, a verifier that
raises. Every answer is a well-formed 401/403 or the wrapped app's own; nothing raises."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2
import pytest

from mesh_framework.protocol.body import BODY_READ, BodyRead
from mesh_framework.security.authorization import McpAuthorization
from mesh_framework.security.verifiers import AccessToken, StaticTokenVerifier, TokenVerifier

SCOPES = {"reset": ("admin",), "add": ("math",)}


async def echo_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answers 200 with the body it received, the token the middleware left, and what the middleware
    read of the body for the endpoint (the message, or the error reading or parsing it)."""
    body = b""
    more = True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    access = scope.get("state", {}).get("access_token")
    read: BodyRead | None = scope.get(BODY_READ)
    answer = json.dumps(
        {
            "body": body.decode(),
            "client": access.client_id if access else None,
            "parsed": None if read is None else read.message,
            "error": None if read is None or read.error is None else type(read.error).__name__,
            "status": getattr(read and read.error, "status", None),
        }
    ).encode()
    await send(
        {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]}
    )
    await send({"type": "http.response.body", "body": answer})


def client(
    verifier: TokenVerifier, max_body_bytes: int = 1000, body_timeout: float = 30.0
) -> httpx2.AsyncClient:
    app = McpAuthorization(
        echo_app,
        verifier,
        path="/mcp",
        tool_scopes=lambda name: SCOPES.get(name, ()),
        scoped_tools=True,
        max_body_bytes=max_body_bytes,
        body_timeout=body_timeout,
    )
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://127.0.0.1:9")


STATIC = StaticTokenVerifier([("math-token", ["math"], "ci")])


def call(name: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": {}}}


@pytest.mark.parametrize(
    "credentials",
    [
        "",
        "Bearer",
        "Bearer ",
        "Basic bWF0aDp0b2tlbg==",
        "bearer wrong",
        "Bearer " + "x" * 10000,
        "Bearer \u00e9\u00e8",
    ],
)
async def test_malformed_or_wrong_credentials_get_a_401_challenge(credentials: str) -> None:
    async with client(STATIC) as http:
        headers = {"Authorization": credentials.encode("latin-1")} if credentials else {}
        answer = await http.post("/mcp", json=call("add"), headers=headers)  # type: ignore[arg-type]
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"].startswith("Bearer ")
    assert (
        'resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp"'
        in answer.headers["www-authenticate"]
    )
    assert set(answer.json()) == {"error", "error_description"}


async def test_the_body_decides_the_scopes_whatever_the_headers_say() -> None:
    async with client(STATIC) as http:
        sent = {"Authorization": "Bearer math-token", "Mcp-Method": "tools/call", "Mcp-Name": "add"}
        refused = await http.post("/mcp", json=call("reset"), headers=sent)
        assert refused.status_code == 403
        allowed = await http.post("/mcp", json=call("add"), headers=sent)
        assert allowed.status_code == 200
        assert json.loads(allowed.json()["body"]) == call("add")  # replayed to the app intact
        assert allowed.json()["parsed"] == call("add")  # and parsed once, for the endpoint
        assert allowed.json()["client"] == "ci"


async def test_odd_bodies_pass_to_the_endpoint_which_answers_them() -> None:
    async with client(STATIC, max_body_bytes=150) as http:
        sent = {"Authorization": "Bearer math-token"}
        for body in (b"", b"not json", b"[1, 2, {]", json.dumps([call("add"), "x", None, 3]).encode()):
            answer = await http.post("/mcp", content=body, headers=sent)
            assert answer.status_code == 200 and answer.json()["body"] == body.decode()

        async def chunks() -> Any:
            text = json.dumps(call("reset")).encode()
            for i in range(0, len(text), 7):
                yield text[i : i + 7]

        assert (await http.post("/mcp", content=chunks(), headers=sent)).status_code == 403
        # Over the limit: read and dropped, the refusal left for the endpoint (which answers 413).
        big = json.dumps({**call("reset"), "pad": "x" * 200}).encode()
        answer = await http.post("/mcp", content=big, headers=sent)
        assert answer.status_code == 200
        seen = answer.json()
        assert (seen["body"], seen["parsed"], seen["error"], seen["status"]) == ("", None, "BodyRefused", 413)


async def test_a_body_slower_than_the_body_timeout_is_refused_408() -> None:
    """The middleware reads the body within `server.body_timeout`, as the endpoint does: a sender that
    stops half-way does not hold the request (and its connection) for ever."""
    stalled = asyncio.Event()

    async def half_then_nothing() -> Any:
        yield json.dumps(call("add")).encode()[:10]
        await stalled.wait()  # never set: the sender stops here

    async with client(STATIC, body_timeout=0.2) as http:
        answer = await asyncio.wait_for(
            http.post("/mcp", content=half_then_nothing(), headers={"Authorization": "Bearer math-token"}),
            timeout=10,
        )
    assert answer.json()["error"] == "BodyRefused" and answer.json()["status"] == 408


async def test_a_verifier_that_raises_is_a_refusal_not_a_traceback(caplog: pytest.LogCaptureFixture) -> None:
    class Broken(TokenVerifier):
        async def verify(self, token: str) -> AccessToken | None:
            raise RuntimeError("directory down")

    async with client(Broken()) as http:
        answer = await http.post("/mcp", json=call("add"), headers={"Authorization": "Bearer secret-123"})
    assert answer.status_code == 401 and "invalid_token" in answer.headers["www-authenticate"]
    assert "directory down" in caplog.text and "secret-123" not in caplog.text


async def test_metadata_answers_get_and_head_only() -> None:
    async with client(STATIC) as http:
        assert (await http.get("/.well-known/oauth-protected-resource")).json()[
            "resource"
        ] == "http://127.0.0.1:9/mcp"
        assert (await http.head("/.well-known/oauth-protected-resource/mcp")).status_code == 200
        assert (await http.post("/.well-known/oauth-protected-resource")).status_code == 405
        assert (await http.get("/health")).status_code == 200  # not the endpoint: passed through
