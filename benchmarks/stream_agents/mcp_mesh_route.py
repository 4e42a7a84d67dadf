"""The route app of the streaming benchmark, MCP Mesh 3.8's: a FastAPI ``@mesh.route`` streaming the
``mesh_chat`` capability as Server-Sent Events (``python -m uvicorn mcp_mesh_route:app``, mcp-mesh venv)."""

import mesh
from fastapi import FastAPI
from mesh.types import McpMeshTool

app = FastAPI(title="Stream Bench Route")


@app.get("/chat")
@mesh.route(dependencies=["mesh_chat"])
async def chat(question: str, chat: McpMeshTool = None) -> mesh.Stream[str]:
    async for chunk in chat.stream(question=question):
        yield chunk
