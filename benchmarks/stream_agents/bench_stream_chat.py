"""The chat agent of the streaming benchmark, ours: `bench_chat(question)` streams the model's answer
(`@mesh_llm(provider="openai/gpt-fake")`, the fake OpenAI server at MESH_LLM__VENDORS__OPENAI__BASE_URL,
through the official SDK). With BENCH_CHAT_VIA_PROVIDER=1 it is `bench_chat_mesh`, whose model is the
mesh's provider of capability `llm` (llm_agents/bench_llm_provider.py), as MCP Mesh's chatbot has it.

Run from this folder: `python -m mesh_framework.cli run bench_stream_chat --port 0`.
"""

from __future__ import annotations

import os

from mesh_framework import MeshLlmAgent, Stream, mesh_agent, mesh_llm, mesh_tool

VIA_PROVIDER = os.environ.get("BENCH_CHAT_VIA_PROVIDER") == "1"
CAPABILITY = "bench_chat_mesh" if VIA_PROVIDER else "bench_chat"
PROVIDER: str | dict[str, object] = (
    {"capability": "llm", "tags": ["+fake"]} if VIA_PROVIDER else "openai/gpt-fake"
)


@mesh_agent(name=f"stream-bench-{CAPABILITY.replace('_', '-')}", version="1.0.0")
class StreamBenchChat:
    """Provider of the chat capability."""


@mesh_tool(capability=CAPABILITY)
@mesh_llm(provider=PROVIDER, max_iterations=1)
async def bench_chat(question: str, llm: MeshLlmAgent) -> Stream[str]:
    """The model's answer, chunk by chunk."""
    async for chunk in llm.stream(question):
        yield chunk
