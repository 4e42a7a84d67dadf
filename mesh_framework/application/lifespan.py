"""An agent's lifespan: catalog connections and the gateway prepared before serving and released after;
the lifespans of the apps mounted in it (a served FastAPI app) run inside; ready while it serves; the mesh
joined beside the server once it listens on a socket."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from starlette.routing import Route

from ..config.loader import LoadedSettings
from ..di.usage import built_or_loaded, names_servers
from ..errors import ConfigError, MeshError
from ..extension import ServingLifecycle
from ..routes.web import start_mounted

__all__ = ["AgentLifecycle"]

logger = logging.getLogger("mesh_framework")


class AgentLifecycle:
    """What happens around serving, for the container of one agent."""

    def __init__(self, container: Any, loaded: LoadedSettings) -> None:
        self.container = container
        self.loaded = loaded
        self.prepared = False
        self.failure: MeshError | None = None  # why start-up failed inside the lifespan (re-raised by serve)

    async def prepare(self) -> None:
        """What must happen before serving, once: with `mcp.fail_fast`, reach every catalog server (all
        failures listed in one ConfigError); discover the gateway's servers and serve their tools."""
        if self.prepared:
            return
        fail_fast = self.loaded.settings.mcp.fail_fast
        if fail_fast and names_servers(self.loaded.settings):
            callbacks = self.container.mcp_tool_callbacks()
            if callbacks.connections:
                await callbacks.start(fail_fast=True)
        gateway = self.container.gateway()
        if gateway is not None:
            await gateway.start()
            if fail_fast and gateway.provider.errors:
                await gateway.aclose()
                raise ConfigError(
                    [f"mcp.gateway: MCP server '{n}': {r}" for n, r in gateway.provider.errors.items()]
                )
        self.prepared = True

    async def release(self) -> None:
        """Stop catalog server processes and close their sessions."""
        self.prepared = False
        gateway = self.container.gateway()
        if gateway is not None:
            await gateway.aclose()
        for agent in self.container.llm_agents().values():
            await agent.aclose()
        container = self.container  # beans of features the app does not use were never built: none to close
        if built_or_loaded(container.llm_provider_service, "mesh_framework.llm.provider"):
            await container.llm_provider_service().aclose()
        if built_or_loaded(container.mcp_tool_callbacks, "mesh_framework.callbacks.mcp"):
            await container.mcp_tool_callbacks().aclose()
        await self.container.event_publisher().drain()
        beans = container.bean_lifecycle()
        if beans is not None:  # the app's beans last, in reverse order of creation (di/lifecycle.py)
            await beans.close()

    @contextlib.asynccontextmanager
    async def running(self, port: int | None) -> AsyncIterator[None]:
        """Runs the mounted apps' lifespans (in mount order, before the agent is ready; stopped in reverse
        after it left the mesh), marks the agent ready; when it serves on a socket (`port`; None for
        in-process tests), joins the mesh."""
        state = self.container.agent_state()
        self.failure = None
        await self.prepare()
        try:
            beans = self.container.bean_lifecycle()
            if beans is not None:  # made already by serve() or mesh_client; else the singletons now
                await beans.start()
            mounted = await start_mounted(self.container.web_app())
        except BaseException as exc:
            if isinstance(exc, MeshError):
                self.failure = exc
            await self.release()
            raise
        try:
            started = await _start_lifecycles(self.container.serving_lifecycles())
        except BaseException as exc:
            if isinstance(exc, MeshError):
                self.failure = exc
            await mounted.aclose()
            await self.release()
            raise
        runtime: Any = None
        joining: asyncio.Task[None] | None = None
        if port is not None:
            settings = self.loaded.settings
            routes = sum(1 for r in self.container.web_app().routes if isinstance(r, Route))
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
            # Joining the mesh must not hold up serving: it runs beside the server, which is already
            # listening (the socket was bound before the lifespan started).
            joining = asyncio.get_running_loop().create_task(_join(runtime, port))
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
            await _stop_lifecycles(started)
            await mounted.aclose()
            await self.release()


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


async def _join(runtime: Any, port: int) -> None:
    try:
        await runtime.start(port)
    except Exception:
        logger.exception("could not join the mesh; serving without it")
