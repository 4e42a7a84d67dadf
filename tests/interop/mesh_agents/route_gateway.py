#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture: a FastAPI app with ``@mesh.route`` handlers (no ``@mesh.agent``), run by uvicorn
(``python -m uvicorn route_gateway:app``); it registers as an ``api`` agent. ``GET /api/shout`` depends on
capability ``upper``; ``GET /api/shout-stream`` streams one upper-cased word per SSE event."""

import mesh
from fastapi import FastAPI
from mesh.types import McpMeshTool

app = FastAPI(title="Mesh Route Gateway")


@app.get("/api/shout")
@mesh.route(dependencies=["upper"])
async def shout(text: str, up: McpMeshTool = None) -> dict:
    return {"text": await up(text=text)}


@app.get("/api/shout-stream")
@mesh.route(dependencies=["upper"])
async def shout_stream(text: str, up: McpMeshTool = None) -> mesh.Stream[str]:
    for word in text.split():
        yield await up(text=word)
