"""`build_registry_app`: the MCP Mesh registry protocol over HTTP, served from a `RegistryStore`.

- POST `/heartbeat`: 200 `{status, message, agent_id, timestamp, dependencies_resolved, llm_tools,
  llm_providers}`; an invalid payload gets 400 `{status: "error", message, field}` (MCP Mesh: 200).
- HEAD `/heartbeat/{agent_id}`: 200 unchanged · 202 *this agent's* answer changed · 410 unknown or
  unhealthy · 503 registry error.
- DELETE `/agents/{agent_id}`: 204, also for unknown ids.
- GET `/agents`: `{agents: [...], count, timestamp}` (`agents` is `[]` when empty; MCP Mesh says null);
  `?schemas=true` adds each capability's `input_schema` and `kwargs` (what `mesh gateway` serves).
- GET/HEAD `/health`: `{service: "mcp-mesh-registry", status, timestamp, uptime_seconds, version}`.
- GET `/events?agent_id=&type=&function_name=&limit=`: the resolution audit and lifecycle events, newest
  first, `{count, events}` (registry/audit.py); `limit` 1..500, default 50.
- GET `/explain?agent_id=&function_name=&dep_index=`: how that dependency slot resolves now, every stage.
- GET `/topology/stream?agent_id=ID`: the agent's answers pushed as they change (SSE, registry/push.py).
- GET `/ui`, `/ui/state`, `/ui/stream`: the mesh page, its JSON and its change stream (registry/ui/).
- POST `/console/push`, GET `/ui/console`, `/ui/tools`, `/ui/events`, POST `/ui/call`: the console's
  traffic, traces, events and tool calls (registry/console/).

The app's lifespan runs the health sweep every `check_interval` seconds, and at its end waits until the
store's database (if any) has every change.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from .. import _version
from ..edge import EdgePolicy, GuardedEdge
from ..metrics.registry_metrics import registry_metrics_route
from .a2a import a2a_surfaces
from .audit_routes import audit_routes
from .auth import RegistryTokenAuth
from .inputs import BodyError, read_json
from .jobs import JobBoard, job_routes, pending_jobs_header
from .payload import PayloadError
from .push import TopologyPush
from .store import RegistryStore
from .views import agent_view, health_view, timestamp

__all__ = ["CONSOLE_ROUTES", "MAX_BODY_BYTES", "UI_ROUTES", "build_registry_app", "default_check_interval"]

logger = logging.getLogger("mesh_framework.registry")

MAX_BODY_BYTES = 4 * 1024 * 1024

# The routes of the mesh page (registry/ui/) and of the console (registry/console/), (path, methods): their
# modules are loaded at their first request (a browser's, or an agent's console push), not to serve the mesh.
UI_ROUTES = (("/ui", ("GET",)), ("/ui/state", ("GET",)), ("/favicon.ico", ("GET",)))
CONSOLE_ROUTES = (
    ("/console/push", ("POST",)),
    ("/ui/console", ("GET",)),
    ("/ui/tools", ("GET",)),
    ("/ui/events", ("GET",)),
    ("/ui/call", ("POST",)),
)


class _Deferred:
    """The endpoint of one of `table`'s routes: on the first request to any of them, `build()` makes the
    real routes (importing their modules), and every request is handed to the real route of its path."""

    def __init__(self, path: str, built: dict[str, Route], build: Callable[[], list[Route]]) -> None:
        self.path, self.built, self.build = path, built, build

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.built:
            self.built.update((route.path, route) for route in self.build())
        await self.built[self.path].handle(scope, receive, send)


def _deferred(
    table: tuple[tuple[str, tuple[str, ...]], ...], build: Callable[[], list[Route]]
) -> list[Route]:
    built: dict[str, Route] = {}
    return [Route(path, _Deferred(path, built, build), methods=list(methods)) for path, methods in table]


def _page_and_console(store: RegistryStore, *, token_required: bool) -> list[Route]:
    """The mesh page's routes and the console's (with its board: what agents push), made when first asked."""

    def ui() -> list[Route]:
        from .ui import ui_routes

        return ui_routes(store)

    def console() -> list[Route]:
        from .console import ConsoleBoard, console_routes

        return console_routes(store, ConsoleBoard(), token_required=token_required)

    return [*_deferred(UI_ROUTES, ui), *_deferred(CONSOLE_ROUTES, console)]


def default_check_interval(timeout: float) -> float:
    """MCP Mesh scans every 10 s; a short timeout needs a shorter scan."""
    return min(timeout / 2, 10.0)


def _error(status_code: int, message: str, field: str | None = None) -> JSONResponse:
    body: dict[str, Any] = {"status": "error", "message": message, "timestamp": timestamp()}
    if field is not None:
        body["field"] = field
    return JSONResponse(body, status_code=status_code)


async def _cancelled(task: asyncio.Task[None] | None) -> None:
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def _guarded(host: str, token: str | None) -> list[Middleware]:
    """The edge first (Host/Origin, content types, body limits), then the registry token if there is one."""
    policy = EdgePolicy.loopback(host, surface="registry", max_body_bytes=MAX_BODY_BYTES)
    middleware = [Middleware(GuardedEdge, policy=policy)]
    if token:
        middleware.append(Middleware(RegistryTokenAuth, token=token))
    return middleware


def build_registry_app(
    store: RegistryStore,
    *,
    check_interval: float | None = None,
    sweep: bool = True,
    token: str | None = None,
    host: str = "127.0.0.1",
) -> Starlette:
    """The registry's ASGI app over `store`; with `sweep`, its lifespan runs `store.sweep()` periodically.

    Every request passes the guarded edge first (`edge/`): bound to a loopback `host`, only this machine's
    hosts and pages reach it; bodies are bounded while read. With a `token`, the registry's token is then
    checked in front of every route but `/health` (registry/auth.py)."""
    interval = check_interval if check_interval is not None else default_check_interval(store.timeout)
    if interval <= 0:
        raise ValueError(f"Registry check interval must be positive, not {interval!r}")
    push = TopologyPush(store)  # GET /topology/stream, /ui/stream: registry/push.py

    async def heartbeat(request: Request) -> Response:
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > MAX_BODY_BYTES:
            return _error(413, f"request body is larger than {MAX_BODY_BYTES} bytes")
        try:
            result = store.heartbeat(await read_json(request, what="the heartbeat"))  # strict JSON: inputs.py
        except (BodyError, PayloadError) as exc:
            return _error(400, f"validation failed: {exc}", exc.field)
        except Exception:
            logger.exception("heartbeat failed")
            return _error(500, "registry error while processing the heartbeat")
        message = "Agent registered via heartbeat" if result.created else "Agent updated via heartbeat"
        return JSONResponse(
            {
                "status": "success",
                "message": message,
                "agent_id": result.registration.agent_id,
                "timestamp": timestamp(),
                **result.answer,
            }
        )

    async def heartbeat_head(request: Request) -> Response:
        try:
            return Response(
                status_code=store.head(request.path_params["agent_id"]),
                headers=pending_jobs_header(store, request.path_params["agent_id"]),  # registry/jobs.py
            )
        except Exception:
            logger.exception("heartbeat check failed")
            return Response(status_code=503)

    async def unregister(request: Request) -> Response:
        store.delete(request.path_params["agent_id"])
        return Response(status_code=204)

    async def agents(request: Request) -> Response:
        schemas = request.query_params.get("schemas", "").lower() == "true"
        views = [agent_view(state, schemas=schemas) for state in store.agents()]
        return JSONResponse({"agents": views, "count": len(views), "timestamp": timestamp()})

    async def a2a_agents(request: Request) -> Response:
        return JSONResponse({"surfaces": a2a_surfaces(store.agents())})

    async def health(request: Request) -> Response:
        # the installed metadata, read at the first answer (_version.py), not when the registry starts
        return JSONResponse(health_view(store.uptime, _version.__version__))

    async def sweeper() -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                store.sweep()
            except Exception:
                logger.exception("registry health sweep failed")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        task = asyncio.create_task(sweeper(), name="registry-sweep") if sweep else None
        try:
            yield
        finally:
            push.close()
            await _cancelled(task)
            await asyncio.to_thread(store.flush)  # the database has every change once the app stops

    routes = [
        Route("/heartbeat", heartbeat, methods=["POST"]),
        Route("/heartbeat/{agent_id}", heartbeat_head, methods=["HEAD"]),
        Route("/agents/{agent_id}", unregister, methods=["DELETE"]),
        Route("/agents", agents, methods=["GET"]),
        Route("/a2a/agents", a2a_agents, methods=["GET"]),
        Route("/health", health, methods=["GET", "HEAD"]),
        *audit_routes(store),  # GET /events, /explain: registry/audit_routes.py
        *push.routes(),
        *job_routes(JobBoard.for_store(store)),  # /jobs...: registry/jobs.py
        *_page_and_console(store, token_required=bool(token)),  # registry/ui/, registry/console/
        registry_metrics_route(store),  # Prometheus gauges over the store: metrics/registry_metrics.py
    ]
    app = Starlette(routes=routes, middleware=_guarded(host, token), lifespan=lifespan)
    app.state.store, app.state.push = store, push
    return app
