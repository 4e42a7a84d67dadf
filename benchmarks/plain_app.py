"""Anchor (a): a plain Starlette JSON route, no MCP. POST /mcp answers a small fixed JSON body.

Serve: `python -m uvicorn plain_app:app --app-dir benchmarks --host 127.0.0.1 --port N`.
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

_ANSWER = {
    "jsonrpc": "2.0",
    "id": 1,
    "result": {"content": [{"type": "text", "text": "3"}], "isError": False},
}


async def plain(request: Request) -> JSONResponse:
    return JSONResponse(_ANSWER)


app = Starlette(routes=[Route("/mcp", plain, methods=["POST"])])
