"""FastAPI integration (the `fastapi` extra): serve your own FastAPI app from the agent and give its
handlers the agent's components and mesh dependencies through `Depends`.

    from fastapi import FastAPI
    from mesh_framework.fastapi import Bean, MeshService, MeshTool, serve

    api = serve(FastAPI())

    @api.get("/api/shout")
    async def shout(text: str, up: McpMeshTool = MeshTool("upper"), greeter: Greeter = Bean(Greeter)):
        return {"text": await up(text=text)}

    @api.get("/api/caption")
    async def caption(text: str, media: Media = MeshService(Media)):  # a @mesh_service class
        return await media.caption(text=text)
"""

from __future__ import annotations

from .routes.fastapi_app import Bean, DependencyUnavailable, MeshService, MeshTool, serve

__all__ = ["Bean", "DependencyUnavailable", "MeshService", "MeshTool", "serve"]
