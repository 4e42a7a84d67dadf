"""Web routes whose model is a provider agent of the mesh that is not there, buffered and streamed, beside
a route whose mesh tool is not there: each answers 503 naming the capability that is missing."""

from __future__ import annotations

from mesh_framework import McpMeshTool, MeshLlmAgent, Stream, mesh_agent, mesh_llm, mesh_route


@mesh_agent(name="lonely-asker", version="1.0.0")
class LonelyAsker:
    pass


@mesh_route("/api/ask")
@mesh_llm(provider={"capability": "llm"})
async def ask(question: str, llm: MeshLlmAgent) -> dict[str, str]:
    return {"answer": str(await llm(question))}


@mesh_route("/api/chat")
@mesh_llm(provider={"capability": "llm"})
async def chat(question: str, llm: MeshLlmAgent) -> Stream[str]:
    async for chunk in llm.stream(question):
        yield chunk


@mesh_route("/api/sum", dependencies=["add"])
async def total(a: int, b: int, add: McpMeshTool) -> dict[str, int]:
    return {"sum": int(await add(a=a, b=b))}
