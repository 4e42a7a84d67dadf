"""FastAPI integration (the `fastapi` extra): serve your own FastAPI app from the agent and give its
handlers the agent's components and mesh dependencies through `Depends`.

    from fastapi import FastAPI
    from mesh_framework.fastapi import Bean, MeshTool, serve

    api = serve(FastAPI())

    @api.get("/api/shout")
    async def shout(text: str, up: McpMeshTool = MeshTool("upper"), greeter: Greeter = Bean(Greeter)):
        return {"text": await up(text=text)}
"""

from __future__ import annotations

from .routes.fastapi_app import Bean, DependencyUnavailable, MeshTool, serve

__all__ = ["Bean", "DependencyUnavailable", "MeshTool", "serve"]
