"""The route agent of the streaming benchmark, ours: `GET /chat?question=...` passes on the stream of
the chat capability named by BENCH_CHAT (default `bench_chat`) as Server-Sent Events.

Run from this folder: `python -m mesh_framework.cli run bench_stream_route --port 0`.
"""

from __future__ import annotations

import os

from mesh_framework import McpMeshTool, Stream, mesh_agent, mesh_route

CHAT = os.environ.get("BENCH_CHAT", "bench_chat")


@mesh_agent(name=f"stream-bench-route-{CHAT.replace('_', '-')}", version="1.0.0")
class StreamBenchRoute:
    """An agent with one route and no tools (an `api` agent to the registry)."""


@mesh_route("/chat", dependencies=[CHAT])
async def chat(question: str, chat: McpMeshTool) -> Stream[str]:
    async for chunk in chat.stream(question=question):
        yield chunk
