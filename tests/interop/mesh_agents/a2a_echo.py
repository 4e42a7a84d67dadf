"""mcp-mesh 3.8 fixture: a FastAPI app with an A2A surface ``/agents/echo`` (skill ``echo-text``) mounted by
``mesh.a2a.mount``, run by uvicorn (``uvicorn a2a_echo:app``)."""

import mesh
from fastapi import FastAPI

app = FastAPI(title="Echo A2A")


@mesh.a2a.mount(
    app, path="/agents/echo", skill_id="echo-text", description="Echo text via A2A", tags=["demo", "echo"]
)
async def echo_text(message: dict) -> dict:
    text = "".join(p.get("text", "") for p in message.get("parts", []))
    return {"echo": f"mesh:{text}"}
