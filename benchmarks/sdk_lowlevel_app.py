"""Anchor (d): the `mcp` SDK's low-level `Server`, stateless, `json_response=True`, one `add` tool.

The SDK's documented low-level recipe (a `list_tools` and a `call_tool` handler, the input schema read with
`get_tool_input_schema`), served by its stateless streamable HTTP session manager. The tool answers like the
benchmark agent, text content plus `structuredContent {"result": n}` under an output schema, so both do the
same work.

Serve: `python -m uvicorn sdk_lowlevel_app:app --app-dir benchmarks --host 127.0.0.1 --port N`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "a": {"type": "integer", "description": "First addend"},
        "b": {"type": "integer", "description": "Second addend"},
    },
    "required": ["a", "b"],
    "additionalProperties": False,
}
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"result": {"type": "integer"}},
    "required": ["result"],
}


async def add(a: int, b: int) -> int:
    return a + b


async def list_tools(
    ctx: ServerRequestContext, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name="add",
                description="Add two integers.",
                input_schema=INPUT_SCHEMA,
                output_schema=OUTPUT_SCHEMA,
            )
        ]
    )


async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
    if params.name != "add":
        raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")
    args = dict(params.arguments or {})
    try:
        result = await add(**args)
    except Exception as exc:
        return types.CallToolResult(content=[types.TextContent(type="text", text=str(exc))], is_error=True)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(result))],
        structured_content={"result": result},
    )


server = Server(
    "sdk-lowlevel",
    version="1.0.0",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    get_tool_input_schema=lambda name: INPUT_SCHEMA if name == "add" else None,
)
session_manager = StreamableHTTPSessionManager(
    app=server,
    stateless=True,
    json_response=True,
    security_settings=TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    ),
)
_sdk = StreamableHTTPASGIApp(session_manager)


class McpEndpoint:
    """A class instance, so Starlette's Route treats it as a raw ASGI app (POST only)."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] in ("GET", "DELETE"):
            await Response(status_code=405, headers={"Allow": "POST"})(scope, receive, send)
            return
        await _sdk(scope, receive, send)


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    async with session_manager.run():
        yield


app = Starlette(routes=[Route("/mcp", endpoint=McpEndpoint())], lifespan=lifespan)
