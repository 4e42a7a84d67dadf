"""The agent's ASGI application: the MCP endpoint plus `/health`, `/ready` and `/livez`."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..config.settings import MeshSettings
from .server import McpEndpoint

__all__ = ["AgentApp", "AgentState", "build_asgi_app"]

Lifespan = Callable[[Any], contextlib.AbstractAsyncContextManager[None]]


class AgentState:
    """What the health endpoints report; `ready` turns true once start-up has finished."""

    def __init__(self, settings: MeshSettings) -> None:
        self.settings = settings
        self.ready = False

    def describe(self, status: str) -> dict[str, Any]:
        agent = self.settings.agent
        return {"status": status, "agent": agent.name, "agent_id": agent.id, "version": agent.version}


class AgentApp:
    """The agent's ASGI app: MCP requests go straight to the endpoint (no routing or middleware on the hot
    path); everything else, lifespan included, to the Starlette app with the health routes."""

    def __init__(self, path: str, endpoint: McpEndpoint, web: Starlette) -> None:
        self.path = path
        self.endpoint = endpoint
        self.web = web
        self.router = web.router  # its lifespan_context, for in-process clients

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == self.path:
            await self.endpoint(scope, receive, send)
        else:
            await self.web(scope, receive, send)


def build_asgi_app(
    settings: MeshSettings, endpoint: McpEndpoint, state: AgentState, lifespan: Lifespan
) -> AgentApp:
    async def health(request: Request) -> JSONResponse:
        return JSONResponse(state.describe("healthy"))

    async def ready(request: Request) -> JSONResponse:
        if state.ready:
            return JSONResponse(state.describe("ready"))
        return JSONResponse(state.describe("starting"), status_code=503)

    async def livez(request: Request) -> JSONResponse:
        return JSONResponse(state.describe("alive"))

    routes = [
        Route("/health", health, methods=["GET", "HEAD"]),
        Route("/ready", ready, methods=["GET", "HEAD"]),
        Route("/livez", livez, methods=["GET", "HEAD"]),
    ]
    return AgentApp(settings.server.path, endpoint, Starlette(routes=routes, lifespan=lifespan))


@contextlib.asynccontextmanager
async def no_lifespan(app: Any) -> AsyncIterator[None]:
    yield
