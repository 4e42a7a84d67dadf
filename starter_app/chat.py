"""The chat page: `/chat` serves a small HTML page, and `/api/chat` streams the answer of the `ask` tool to
it as Server-Sent Events, chunk by chunk as the model writes it.

`ask` is a tool of this same agent, reached as any mesh dependency (the registry resolves it; a provider of
this agent is called in process). Open http://127.0.0.1:8080/chat once the agent runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import Field
from starlette.responses import HTMLResponse

from mesh_framework import McpMeshTool, Stream, mesh_route

__all__ = ["chat", "chat_page"]

PAGE = Path(__file__).with_name("chat.html")


@mesh_route("/chat")
def chat_page() -> HTMLResponse:
    """The page itself (HTML, CSS and script in one file, nothing loaded from elsewhere)."""
    return HTMLResponse(PAGE.read_text(encoding="utf-8"))


@mesh_route("/api/chat", dependencies=["ask"])
async def chat(
    question: Annotated[str, Field(min_length=1, max_length=4000)], ask: McpMeshTool
) -> Stream[str]:
    """The `ask` tool's answer, passed on as each chunk arrives."""
    async for chunk in ask.stream(question=question):
        yield chunk
