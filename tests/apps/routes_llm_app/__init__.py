"""Web routes that ask an LLM: one whose model is a provider agent of the mesh and whose tools are mesh
tools (as `llm_mesh_app`'s tool), one whose model is a vendor's, called directly, and a chat that streams
the vendor's answer as Server-Sent Events."""

from __future__ import annotations

from mesh_framework import MeshLlmAgent, Stream, mesh_agent, mesh_llm, mesh_route


@mesh_agent(name="web-asker", version="1.0.0")
class WebAsker:
    pass


@mesh_route("/api/ask")
@mesh_llm(provider={"capability": "llm", "tags": ["+fake"]}, filter=[{"capability": "add"}], max_iterations=5)
async def ask(question: str, llm: MeshLlmAgent) -> dict[str, str]:
    return {"answer": str(await llm(question))}


@mesh_route("/api/ask-direct", methods=["POST"])
@mesh_llm(provider="openai/gpt-fake")
async def ask_direct(question: str, llm: MeshLlmAgent) -> dict[str, str]:
    return {"answer": str(await llm(question))}


@mesh_route("/api/chat")
@mesh_llm(provider="openai/gpt-fake")
async def chat(question: str, llm: MeshLlmAgent) -> Stream[str]:
    """The model's answer to the browser as it is written: its stream, event by event."""
    async for chunk in llm.stream(question):
        yield chunk
