"""MCP Mesh 3.8's A2A surface for the A2A benchmark: `mesh.a2a.mount` on a FastAPI app (run by uvicorn),
skill `echo` at /agents/echo answering the text."""

import mesh
from fastapi import FastAPI

app = FastAPI(title="A2A bench")


@mesh.a2a.mount(app, path="/agents/echo", skill_id="echo", description="Echo the text", tags=["bench"])
async def echo(message: dict) -> str:
    return "".join(p.get("text", "") for p in message.get("parts", []))
