"""An agent's lifespan: its beans started, the lifespans of the apps mounted in it (a served FastAPI app)
and the features' serving lifecycles started before it is ready and stopped after it served, its beans
closed last; the mesh joined beside the server once it listens on a socket."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from starlette.routing import Route

from ..config.loader import LoadedSettings
from ..errors import MeshError
from ..extension import HttpSurface, ServingLifecycle

__all__ = ["AgentLifecycle"]

logger = logging.getLogger("mesh_framework")


class AgentLifecycle:
    """What happens around serving, for the container of one agent."""

    def __init__(self, container: Any, loaded: LoadedSettings) -> None:
        self.container = container
        self.loaded = loaded
        self.started: list[ServingLifecycle] | None = None  # the serving lifecycles started by prepare()
        self.failure: MeshError | None = None  # why start-up failed inside the lifespan (re-raised by serve)

    async def prepare(self) -> None:
        """Start the features' serving lifecycles, once, before the agent serves (`serve()` does it before
        binding its port, so that a MeshError one raises, such as the unreachable catalog servers of
        `mcp.fail_fast`, stops start-up as a clear error, not inside the server's lifespan)."""
        if self.started is None:
            self.started = await _start_lifecycles(self.container.serving_lifecycles())

    async def release(self) -> None:
        """Stop the serving lifecycles started, let the event listeners finish, then close every bean made
        (the features' connections, server processes and agents among them)."""
        started, self.started = self.started, None
        await _stop_lifecycles(started or [])
        container = self.container
        await container.event_publisher().drain()
        beans = container.bean_lifecycle()
        if beans is not None:  # the app's beans last, in reverse order of creation (di/lifecycle.py)
            await beans.close()

    @contextlib.asynccontextmanager
    async def running(
        self, port: int | None, listening: Callable[[], Awaitable[Any]] | None = None
    ) -> AsyncIterator[None]:
        """Starts the beans and the serving lifecycles (the mounted apps' lifespans among them: before the
        agent is ready, stopped in reverse after it left the mesh), marks the agent ready; when it serves on
        a socket (`port`; None for in-process tests), joins the mesh, once `listening` (awaited) says the
        server listens when it is given."""
        state = self.container.agent_state()
        self.failure = None
        try:
            beans = self.container.bean_lifecycle()
            if beans is not None:  # made already by serve() or mesh_client; else the singletons now
                await beans.start()
            await self.prepare()  # the serving lifecycles, started already by serve()
        except BaseException as exc:
            if isinstance(exc, MeshError):
                self.failure = exc
            await self.release()
            raise
        runtime: Any = None
        joining: asyncio.Task[None] | None = None
        if port is not None:
            settings = self.loaded.settings
            routes = _app_routes(self.container.http_surfaces())
            logger.info(
                "agent '%s' (%s) serving %s://%s:%d%s with %d tool(s)%s",
                settings.agent.name,
                settings.agent.id,
                "https" if settings.tls.cert_file else "http",
                settings.server.host,
                port,
                settings.server.path,
                len(self.container.tools()),
                f" and {routes} web route(s)" if routes else "",
            )
            runtime = self.container.mesh_runtime()
            # Joining the mesh must not hold up serving: it runs beside the server (the socket was bound
            # before the lifespan started), once the server listens (see `_join`).
            joining = asyncio.get_running_loop().create_task(_join(runtime, port, listening))
        state.ready = state.started = True
        try:
            yield
        finally:
            state.ready = False
            if runtime is not None and joining is not None:
                if not joining.done():
                    joining.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await joining
                await runtime.stop()
            await self.release()  # the serving lifecycles stop, then the beans close


def _app_routes(surfaces: list[HttpSurface]) -> int:
    """How many web routes the app serves of its own (`@mesh_route`s; mounts not counted)."""
    return sum(1 for s in surfaces if s.app_routes for r in s.routes if isinstance(r, Route))


async def _start_lifecycles(lifecycles: list[ServingLifecycle]) -> list[ServingLifecycle]:
    """Start the features' serving lifecycles by phase; when one fails, stop those started and re-raise."""
    started: list[ServingLifecycle] = []
    try:
        for lifecycle in sorted(lifecycles, key=lambda each: each.phase):
            await lifecycle.start()
            started.append(lifecycle)
    except BaseException:
        await _stop_lifecycles(started)
        raise
    return started


async def _stop_lifecycles(started: list[ServingLifecycle]) -> None:
    """Stop them in reverse; a failing stop is logged and the others still stop."""
    for lifecycle in reversed(started):
        try:
            await lifecycle.stop()
        except Exception:
            logger.exception("stopping %s failed", type(lifecycle).__name__)


# Loop passes a request already waiting when the server begins to listen takes to be answered (its
# connection accepted, connection_made, its bytes read and its task made, the task run: 4), twice over.
SERVING_PASSES = 8


async def _join(runtime: Any, port: int, listening: Callable[[], Awaitable[Any]] | None) -> None:
    """Join the mesh. With `listening`, once the server listens and has taken the requests already waiting
    (a client that connected while the agent started is answered first): the join's imports and the
    embedded registry's start are some 20 ms of CPU on the one event loop."""
    if listening is not None:
        await listening()
        for _ in range(SERVING_PASSES):
            await asyncio.sleep(0)
    try:
        await runtime.start(port)
    except Exception:
        logger.exception("could not join the mesh; serving without it")
