"""A FastAPI app whose handler takes a service interface through `MeshService`: `upper` is required,
`whisper` optional (no agent provides it); and one with `MeshTool("upper")`. The agent has no tools of
its own."""

from __future__ import annotations

from typing import Annotated

from fastapi import FastAPI

from mesh_framework import McpMeshTool, mesh_agent, mesh_service, selector
from mesh_framework.fastapi import MeshService, MeshTool, serve
from mesh_framework.services import ServiceUnavailable


@mesh_agent(name="fastsvc", version="1.0.0")
class FastSvc:
    pass


@mesh_service
class Shouting:
    @selector("upper", required=True)
    async def upper(self, text: str) -> str: ...

    @selector("whisper")
    async def whisper(self, text: str) -> str: ...


api = serve(FastAPI(title="fastsvc"))


@api.get("/api/svc")
async def svc(text: str, shouting: Annotated[Shouting, MeshService(Shouting)]) -> dict[str, object]:
    try:
        whispered = await shouting.whisper(text=text)
    except ServiceUnavailable as exc:
        whispered = str(exc)
    return {"text": await shouting.upper(text), "whisper": whispered, "typed": isinstance(shouting, Shouting)}


@api.get("/api/tool")
async def tool(text: str, up: Annotated[McpMeshTool, MeshTool("upper")]) -> str:
    return str(await up(text=text))
