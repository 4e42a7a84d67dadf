"""Test an agent in process, without a network: the ASGI app behind an httpx2 transport.

Usage::

    app = MeshApplication.load("starter_app", profiles=["test"])
    with app.override(GreetingService, FakeGreetingService()):
        async with mesh_client(app) as client:
            assert (await client.call_tool("greet", {"name": "Ada"}))["isError"] is False
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx2

from ..app import MeshApplication
from ..protocol.versions import LATEST_MODERN_VERSION, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION

__all__ = ["MeshTestClient", "mesh_client"]

_ids = itertools.count(1)


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
        body: dict[str, Any] = {
            "jsonrpc": "2.0",
            "id": next(_ids),
            "method": method,
            "params": dict(params or {}),
        }
        headers = {"Accept": "application/json, text/event-stream"}
        if modern:
            body["params"]["_meta"] = {
                META_PROTOCOL_VERSION: LATEST_MODERN_VERSION,
                META_CLIENT_CAPABILITIES: {},
            }
            headers |= {"MCP-Protocol-Version": LATEST_MODERN_VERSION, "Mcp-Method": method}
            if name is not None:
                headers["Mcp-Name"] = name
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
        response = await self.request(method, params, modern=modern, name=name)
        message = response.json()
        if "result" not in message:
            raise AssertionError(f"{method} answered an error: {message.get('error')}")
        return message["result"]  # type: ignore[no-any-return]

    async def list_tools(self, *, modern: bool = True) -> list[dict[str, Any]]:
        return (await self.result("tools/list", modern=modern))["tools"]  # type: ignore[no-any-return]

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, modern: bool = True
    ) -> dict[str, Any]:
        """The tool's `CallToolResult` (check `isError`, `structuredContent`, `content`)."""
        params = {"name": name, "arguments": dict(arguments or {})}
        return await self.result("tools/call", params, modern=modern, name=name)


@contextlib.asynccontextmanager
async def mesh_client(app: MeshApplication) -> AsyncIterator[MeshTestClient]:
    """Build the app (components instantiated, overrides applied), run its lifespan, yield a client."""
    asgi = app.build()
    async with asgi.router.lifespan_context(asgi):
        transport = httpx2.ASGITransport(app=asgi)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            yield MeshTestClient(http, app.settings.server.path)
