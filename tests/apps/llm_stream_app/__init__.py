"""LLM tools that stream their answers (`llm.stream()` in a `Stream[str]` tool): over a vendor's API, and
over the mesh's LLM provider (with the mesh's `add`)."""

from __future__ import annotations

from mesh_framework import MeshLlmAgent, Stream, mesh_agent, mesh_llm, mesh_tool


@mesh_agent(name="llm-stream", version="1.0.0")
class LlmStreamApp:
    pass


def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


@mesh_tool()
@mesh_llm(provider="openai/gpt-4o-mini", tools=[multiply], max_iterations=3)
async def chat(prompt: str, llm: MeshLlmAgent) -> Stream[str]:
    """Answer as the model writes, with a multiplication tool."""
    async for chunk in llm.stream(prompt):
        yield chunk


@mesh_tool()
@mesh_llm(provider={"capability": "llm", "tags": ["+fake"]}, filter=[{"capability": "add"}], max_iterations=4)
async def chat_mesh(question: str, llm: MeshLlmAgent) -> Stream[str]:
    """Answer as the mesh's LLM provider writes, with the mesh's `add`."""
    async for chunk in llm.stream(question):
        yield chunk


@mesh_tool()
@mesh_llm(provider={"capability": "llm", "tags": ["+fake"]}, filter=[{"capability": "add"}])
async def ask_mesh(question: str, llm: MeshLlmAgent) -> str:
    """The mesh's LLM provider's answer, whole."""
    return str(await llm(question))


@mesh_tool()
@mesh_llm(provider={"capability": "llm", "tags": ["+fake", "-ai.mcpmesh.stream"]})
async def chat_any_provider(question: str, llm: MeshLlmAgent) -> Stream[str]:
    """Streams from the provider's buffered tool's registry entry: its stream tool if it has one."""
    async for chunk in llm.stream(question):
        yield chunk


@mesh_tool()
@mesh_llm(provider={"capability": "llm", "tags": ["+fake"]}, tools=[multiply])
async def chat_local_tools(question: str, llm: MeshLlmAgent) -> Stream[str]:
    """Through the mesh's provider, with a local tool (which a provider agent cannot call)."""
    async for chunk in llm.stream(question):
        yield chunk
