"""Test an agent in process, without a network: MCP requests straight to its ASGI app.

`mesh_client(app)` is an async context manager (for async tests); `SyncMeshClient(app)` does the same from
plain sync tests (the app runs on a loop of its own in a background thread, as in Starlette's TestClient).

Usage::

    app = MeshApplication.load("starter_app", profiles=["test"])
    with app.override(GreetingService, FakeGreetingService()):
        async with mesh_client(app) as client:
            assert (await client.call_tool("greet", {"name": "Ada"}))["isError"] is False
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx2

from ..app import MeshApplication
from ..errors import ToolExecutionError
from ..mesh.proxy import unwrap_result
from ..protocol.versions import (
    LATEST_MODERN_VERSION,
    META_CLIENT_CAPABILITIES,
    META_PROTOCOL_VERSION,
    NAME_BEARING_METHODS,
)
from ..sse import MEDIA_TYPE, decode

__all__ = ["MeshTestClient", "SyncMeshClient", "mesh_client"]

_ids = itertools.count(1)
BASE_URL = "http://127.0.0.1"  # a loopback Host, so the DNS-rebinding guard lets it in


def build_request(
    method: str, params: Mapping[str, Any] | None, *, modern: bool, name: str | None
) -> tuple[dict[str, Any], dict[str, str]]:
    """The JSON-RPC body and headers of one request, in the 2026-07-28 form or the legacy one.

    `name` is the `Mcp-Name` header; when None, a method that names a target (`tools/call`, `tasks/get`,
    ...) mirrors it from its params."""
    body: dict[str, Any] = {
        "jsonrpc": "2.0",
        "id": next(_ids),
        "method": method,
        "params": dict(params or {}),
    }
    headers = {"Accept": f"application/json, {MEDIA_TYPE}"}
    if modern:
        body["params"]["_meta"] = {  # what the caller put there (a progressToken) and the envelope
            **(body["params"].get("_meta") or {}),
            META_PROTOCOL_VERSION: LATEST_MODERN_VERSION,
            META_CLIENT_CAPABILITIES: {},
        }
        headers |= {"MCP-Protocol-Version": LATEST_MODERN_VERSION, "Mcp-Method": method}
        field = NAME_BEARING_METHODS.get(method)
        if name is None and field is not None and isinstance(body["params"].get(field), str):
            name = body["params"][field]
        if name is not None:
            headers["Mcp-Name"] = name
    return body, headers


def result_of(response: httpx2.Response, method: str) -> dict[str, Any]:
    """The `result` of an answer; an AssertionError naming the method and the JSON-RPC error otherwise."""
    message = _message(response)
    if "result" not in message:
        raise AssertionError(f"{method} answered an error: {json.dumps(message.get('error'))}")
    return message["result"]  # type: ignore[no-any-return]


def _message(response: httpx2.Response) -> dict[str, Any]:
    if response.headers.get("content-type", "").startswith(MEDIA_TYPE):
        for event in decode(response.content):
            message = json.loads(event.data)
            if "id" in message and "method" not in message:
                return message  # type: ignore[no-any-return]
        raise AssertionError(f"the event stream carried no answer: {response.text[:500]}")
    return response.json()  # type: ignore[no-any-return]


def value_of(result: dict[str, Any], tool: str, arguments: Mapping[str, Any] | None) -> Any:
    """The tool's value (as a proxy unwraps it); an AssertionError with the tool, its arguments and its
    error when it failed."""
    try:
        return unwrap_result(result, tool=tool, agent="in-process")
    except ToolExecutionError as exc:
        raise AssertionError(
            f"tool '{tool}' called with {json.dumps(arguments or {})} failed: {exc.message}"
        ) from None


class MeshTestClient:
    """Speaks MCP to an in-process agent: 2026-07-28 by default, the legacy stateless form on request."""

    def __init__(self, http: httpx2.AsyncClient, path: str) -> None:
        self.http = http
        self.path = path

    async def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        modern: bool = True,
        name: str | None = None,
    ) -> httpx2.Response:
        """POST one JSON-RPC request and return the raw HTTP response."""
        body, headers = build_request(method, params, modern=modern, name=name)
        return await self.http.post(self.path, json=body, headers=headers)

    async def result(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        modern: bool = True,
        name: str | None = None,
    ) -> dict[str, Any]:
        """The `result` of a request; raises AssertionError with the error answer otherwise."""
        return result_of(await self.request(method, params, modern=modern, name=name), method)

    async def list_tools(self, *, modern: bool = True) -> list[dict[str, Any]]:
        return (await self.result("tools/list", modern=modern))["tools"]  # type: ignore[no-any-return]

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, modern: bool = True
    ) -> dict[str, Any]:
        """The tool's `CallToolResult` (check `isError`, `structuredContent`, `content`)."""
        params = {"name": name, "arguments": dict(arguments or {})}
        return await self.result("tools/call", params, modern=modern, name=name)

    async def call_ok(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        """The tool's value (structured content, else its text); a readable AssertionError when it fails."""
        return value_of(await self.call_tool(name, arguments), name, arguments)

    async def get_prompt(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, modern: bool = True
    ) -> dict[str, Any]:
        """The rendered prompt (`messages`, `description`); AssertionError with the error answer otherwise."""
        params = {"name": name, "arguments": dict(arguments or {})}
        return await self.result("prompts/get", params, modern=modern, name=name)

    async def read_resource(self, uri: str, *, modern: bool = True) -> list[dict[str, Any]]:
        """The `contents` of a resource; AssertionError with the error answer otherwise."""
        return (await self.result("resources/read", {"uri": uri}, modern=modern, name=uri))["contents"]  # type: ignore[no-any-return]


class _BuiltOnStart:
    """The app, built when its lifespan starts: its async beans are awaited on the loop that serves it."""

    def __init__(self, app: MeshApplication) -> None:
        self.app = app
        self.asgi: Any = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if self.asgi is None:
            await self.app.start_beans()
            self.asgi = self.app.build()
        await self.asgi(scope, receive, send)


class SyncMeshClient:
    """`MeshTestClient` for sync tests: the app (and its lifespan) runs in a background thread's loop.

    The app is built on first use, so overrides and stubs set before the first call apply.
    """

    def __init__(self, app: MeshApplication) -> None:
        self.app = app
        self._client: Any = None

    def _http(self) -> Any:
        if self._client is None:
            from starlette.testclient import TestClient

            client = TestClient(_BuiltOnStart(self.app), base_url=BASE_URL)
            client.__enter__()  # runs the lifespan: beans, catalog servers, gateway, LLM agents
            self._client = client
        return self._client

    @property
    def http(self) -> Any:
        """An HTTP client of the in-process app (Starlette's TestClient): web routes, `/health`, `/status`."""
        return self._http()

    def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        modern: bool = True,
        name: str | None = None,
    ) -> httpx2.Response:
        body, headers = build_request(method, params, modern=modern, name=name)
        response: httpx2.Response = self._http().post(
            self.app.settings.server.path, json=body, headers=headers
        )
        return response

    def result(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        modern: bool = True,
        name: str | None = None,
    ) -> dict[str, Any]:
        return result_of(self.request(method, params, modern=modern, name=name), method)

    def list_tools(self, *, modern: bool = True) -> list[dict[str, Any]]:
        return self.result("tools/list", modern=modern)["tools"]  # type: ignore[no-any-return]

    def call_tool(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, modern: bool = True
    ) -> dict[str, Any]:
        params = {"name": name, "arguments": dict(arguments or {})}
        return self.result("tools/call", params, modern=modern, name=name)

    def call_ok(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        return value_of(self.call_tool(name, arguments), name, arguments)

    def get_prompt(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, modern: bool = True
    ) -> dict[str, Any]:
        params = {"name": name, "arguments": dict(arguments or {})}
        return self.result("prompts/get", params, modern=modern, name=name)

    def read_resource(self, uri: str, *, modern: bool = True) -> list[dict[str, Any]]:
        return self.result("resources/read", {"uri": uri}, modern=modern, name=uri)["contents"]  # type: ignore[no-any-return]

    def close(self) -> None:
        if self._client is not None:
            self._client.__exit__(None, None, None)
            self._client = None


@contextlib.asynccontextmanager
async def mesh_client(app: MeshApplication) -> AsyncIterator[MeshTestClient]:
    """Build the app (beans made, async ones awaited, overrides applied), run its lifespan, yield a client;
    the app's beans are closed when the block ends."""
    await app.start_beans()
    try:
        asgi = app.build()
    except BaseException:
        await app.container.bean_lifecycle().close()
        raise
    async with asgi.router.lifespan_context(asgi):
        transport = httpx2.ASGITransport(app=asgi)
        async with httpx2.AsyncClient(transport=transport, base_url=BASE_URL) as http:
            yield MeshTestClient(http, app.settings.server.path)
