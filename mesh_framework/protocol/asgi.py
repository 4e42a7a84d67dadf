"""The agent's ASGI application: the MCP endpoint, straight on its path, and the features' routes (the health
probes, `/metrics`, `/status`, A2A, the web routes) behind the HTTP edge; the agent's state."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from ..config.settings import MeshSettings
from ..edge import EdgePolicy, GuardedEdge
from .drain import Drain
from .job_polls import polls_a_job
from .mcp_server import McpEndpoint

__all__ = ["AgentApp", "AgentState", "build_asgi_app"]

Lifespan = Callable[[Any], contextlib.AbstractAsyncContextManager[None]]


class AgentState:
    """What the health probes report; `ready` turns true once start-up has finished (`started` stays
    true from then on); `drain` refuses new calls while the agent stops."""

    def __init__(self, settings: MeshSettings) -> None:
        self.settings = settings
        self.ready = False
        self.started = False
        self.drain = Drain()

    def describe(self, status: str) -> dict[str, Any]:
        agent = self.settings.agent
        return {"status": status, "agent": agent.name, "agent_id": agent.id, "version": agent.version}


class AgentApp:
    """The agent's ASGI app: MCP requests go straight to the endpoint (no routing or middleware on the hot
    path); everything else, lifespan included, through the guarded edge to the Starlette app with the
    health routes. One bound, `server.max_concurrency`, counts the requests of both."""

    def __init__(
        self,
        path: str,
        endpoint: McpEndpoint,
        web: Starlette,
        drain: Drain | None = None,
        edge: EdgePolicy | None = None,
    ) -> None:
        self.path = path
        self.endpoint = endpoint
        self.web = web
        self.router = web.router  # its lifespan_context, for in-process clients
        self.drain = drain if drain is not None else Drain()
        # Every other surface (routes, served apps, A2A, uploads, health) is reached through the edge; the
        # endpoint makes the same Host/Origin, content-type and body checks itself, on the hot path.
        self.edge = GuardedEdge(web, edge or EdgePolicy(), busy=self._mcp_in_flight)
        self.max_concurrency = self.edge.policy.max_concurrency

    def _mcp_in_flight(self) -> int:
        return self.drain.in_flight

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == self.path:
            drain = self.drain
            if drain.draining:
                if polls_a_job(scope):  # a waiting client reads how its job ends (job_polls.py)
                    await self.endpoint(scope, receive, send)
                else:
                    await drain.refuse(send)
                return
            limit = self.max_concurrency
            if limit is not None and drain.in_flight + self.edge.in_flight >= limit:
                await _refuse_busy(send, limit)
                return
            drain.enter()
            try:
                await self.endpoint(scope, receive, send)
            finally:
                drain.leave()
        else:
            await self.edge(scope, receive, send)


def build_asgi_app(
    settings: MeshSettings,
    endpoint: McpEndpoint,
    state: AgentState,
    lifespan: Lifespan,
    *,
    extra_routes: Sequence[BaseRoute] = (),
    middleware: Sequence[Middleware] = (),
) -> AgentApp:
    """The agent's app: `extra_routes` (the features' HttpSurfaces, in order) and `middleware` behind the
    edge."""
    # middleware (CORS) never sees `/mcp`; last, `/favicon.ico` for a browser on the agent's pages: 204
    # (not a 404 in its log) unless the app serves one
    favicon = Route("/favicon.ico", _no_favicon, methods=["GET"])
    web = Starlette(routes=[*extra_routes, favicon], middleware=list(middleware), lifespan=lifespan)
    return AgentApp(settings.server.path, endpoint, web, state.drain, EdgePolicy.of_agent(settings))


async def _no_favicon(request: Request) -> Response:
    return Response(status_code=204, headers={"Cache-Control": "public, max-age=86400"})


async def _refuse_busy(send: Any, limit: int) -> None:
    """503 with `Retry-After`: the agent serves `limit` requests already (a consumer tries another)."""
    message = f"agent serves {limit} requests at once (server.max_concurrency); retry"
    body = b'{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"' + message.encode() + b'"}}'
    headers = [
        (b"content-type", b"application/json"),
        (b"retry-after", b"1"),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@contextlib.asynccontextmanager
async def no_lifespan(app: Any) -> AsyncIterator[None]:
    yield
