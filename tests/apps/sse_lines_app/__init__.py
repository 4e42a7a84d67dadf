"""A stream route that sends back, chunk by chunk, the JSON list of chunks it is given (`?chunks=[...]`)."""

from __future__ import annotations

import json

from mesh_framework import Stream, mesh_agent, mesh_route


@mesh_agent(name="sse-lines", version="1.0.0")
class SseLines:
    pass


@mesh_route("/api/echo")
async def echo(chunks: str = "[]") -> Stream[str]:
    for chunk in json.loads(chunks):
        yield str(chunk)
