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

__all__ = ["AgentState", "build_asgi_app"]

Lifespan = Callable[[Any], contextlib.AbstractAsyncContextManager[None]]


class AgentState:
    """What the health endpoints report; `ready` turns true once start-up has finished."""

    def __init__(self, settings: MeshSettings) -> None:
        self.settings = settings
        self.ready = False

    def describe(self, status: str) -> dict[str, Any]:
        agent = self.settings.agent
        return {"status": status, "agent": agent.name, "agent_id": agent.id, "version": agent.version}


def build_asgi_app(
    settings: MeshSettings, endpoint: McpEndpoint, state: AgentState, lifespan: Lifespan
) -> Starlette:
    async def health(request: Request) -> JSONResponse:
        return JSONResponse(state.describe("healthy"))

    async def ready(request: Request) -> JSONResponse:
        if state.ready:
            return JSONResponse(state.describe("ready"))
        return JSONResponse(state.describe("starting"), status_code=503)

    async def livez(request: Request) -> JSONResponse:
        return JSONResponse(state.describe("alive"))

    routes = [
        Route(settings.server.path, endpoint=endpoint),
        Route("/health", health, methods=["GET", "HEAD"]),
        Route("/ready", ready, methods=["GET", "HEAD"]),
        Route("/livez", livez, methods=["GET", "HEAD"]),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


@contextlib.asynccontextmanager
async def no_lifespan(app: Any) -> AsyncIterator[None]:
    yield
