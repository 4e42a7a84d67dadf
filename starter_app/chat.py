"""The chat page: `/chat` serves a small HTML page, and `POST /api/chat` streams the answer of the `ask`
tool to it as Server-Sent Events, chunk by chunk as the model writes it. The page keeps the conversation
and sends it whole (`{"messages": [{"role": "user", "content": ...}, ...]}`, the last one the new
question): the model reads the earlier turns, so a follow-up question has its context.

`ask` is a tool of this same agent, reached as any mesh dependency (the registry resolves it; a provider of
this agent is called in process). Open http://127.0.0.1:8080/chat once the agent runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, Field, field_validator
from starlette.responses import HTMLResponse

from mesh_framework import McpMeshTool, Stream, mesh_route

from .tools import Turn

__all__ = ["Conversation", "chat", "chat_page"]

PAGE = Path(__file__).with_name("chat.html")


@mesh_route("/chat")
def chat_page() -> HTMLResponse:
    """The page itself (HTML, CSS and script in one file, nothing loaded from elsewhere)."""
    return HTMLResponse(PAGE.read_text(encoding="utf-8"))


class Conversation(BaseModel):
    """The conversation so far, oldest turn first; the last turn is the user's new question."""

    messages: Annotated[list[Turn], Field(min_length=1, max_length=100)]

    @field_validator("messages")
    @classmethod
    def _ends_with_a_question(cls, messages: list[Turn]) -> list[Turn]:
        if messages[-1].role != "user":
            raise ValueError("the last message is the user's question (role 'user')")
        if len(messages[-1].content) > 4000:
            raise ValueError("the question is longer than 4000 characters")
        return messages


@mesh_route("/api/chat", methods=["POST"], dependencies=["ask"])
async def chat(conversation: Conversation, ask: McpMeshTool) -> Stream[str]:
    """The `ask` tool's answer to the last question, the earlier turns passed as its history; passed on
    as each chunk arrives."""
    *earlier, question = conversation.messages
    history = [turn.model_dump() for turn in earlier]
    async for chunk in ask.stream(question=question.content, history=history):
        yield chunk
