"""An LLM provider without a stream tool, as providers of other SDKs may be: a plain tool of capability
`llm` answering MCP Mesh's request with the same assistant message every time."""

from __future__ import annotations

from typing import Any

from mesh_framework import mesh_agent, mesh_tool


@mesh_agent(name="legacyllm", version="1.0.0")
class LegacyLlm:
    pass


@mesh_tool(capability="llm", tags=["fake"], vendor="openai")
async def fake_chat(request: dict[str, Any]) -> dict[str, Any]:
    """One whole answer, whatever was asked."""
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "model": "openai/legacy"}
    return {"role": "assistant", "content": "A whole answer.", "_mesh_usage": usage}
