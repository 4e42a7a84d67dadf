"""The plain route of the server-CPU anchors: POST /mcp as a plain handler would write it, no MCP.

It reads and parses the request body, adds `a` and `b` and answers the sum in a small JSON-RPC result: the
work of a `tools/call add` without the protocol. Served two ways: by stock uvicorn (anchor a,
`python -m uvicorn plain_app:app --app-dir benchmarks --host 127.0.0.1 --port N`) and by the agents' HTTP
stack (anchor a'', `benchmarks/plain_on_our_stack.py`).
"""

from __future__ import annotations

import json

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

__all__ = ["app"]


async def plain(request: Request) -> JSONResponse:
    message = json.loads(await request.body())
    arguments = message["params"]["arguments"]
    total = arguments["a"] + arguments["b"]
    result = {"content": [{"type": "text", "text": str(total)}], "structuredContent": {"result": total}}
    return JSONResponse({"jsonrpc": "2.0", "id": message["id"], "result": {**result, "isError": False}})


app = Starlette(routes=[Route("/mcp", plain, methods=["POST"])])
