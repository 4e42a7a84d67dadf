"""`InProcessRegistry`: the embedded registry as an agent runs it when no registry URL is set (the
registry feature's `extension.EmbeddedRegistry`).

The agent looks for a registry on 127.0.0.1 at `registry.embedded_port`: if one answers there (another
agent started it, or `mesh registry` runs), it joins it; otherwise it starts one in its own process.
When the registry it joined stops (the agent that ran it stopped), the first agent whose heartbeat fails
starts it again on the same port (`take_over`), and every agent registers there again. The registry's
modules are imported only when this process starts one.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import httpx2

from ..config.environment import embedded_registry_url
from ..config.settings import RegistrySettings
from ..extension import EmbeddedRegistry

if TYPE_CHECKING:
    from .registry_server import RegistryServer

__all__ = ["InProcessRegistry"]

logger = logging.getLogger("mesh_framework.mesh")

REGISTRY_TASK = "mesh-registry"  # the name registry/registry_server.py gives the task serving the registry


class _QuietRegistryServer(logging.Filter):
    """Drops uvicorn's start and stop lines ("Started server process", "Application startup complete",
    "Shutting down", ...) of the registry an agent serves in its own process: the agent's server logs the
    same lines with the same process id, so they would read twice. Warnings and errors pass."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno > logging.INFO:
            return True
        try:
            task = asyncio.current_task()
        except RuntimeError:  # logged outside an event loop
            return True
        return task is None or task.get_name() != REGISTRY_TASK


def _quiet_registry_server() -> None:
    """Install `_QuietRegistryServer` on uvicorn's logger once per process."""
    uvicorn_logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, _QuietRegistryServer) for f in uvicorn_logger.filters):
        uvicorn_logger.addFilter(_QuietRegistryServer())


class InProcessRegistry(EmbeddedRegistry):
    """The registry on `settings.embedded_port`: joined when one answers there, else run by this process
    (port 0: always run here, on a port of its own)."""

    def __init__(self, settings: RegistrySettings) -> None:
        self.settings = settings
        self.running: RegistryServer | None = None  # the registry this process runs

    async def _start(self) -> RegistryServer:
        from .registry_server import start_registry

        settings = self.settings
        token = settings.token.get_secret_value() if settings.token else None
        _quiet_registry_server()
        return await start_registry(
            "127.0.0.1", settings.embedded_port, token=token, audit_history=settings.audit_history
        )

    async def join(self, http: httpx2.AsyncClient) -> str:
        from ..mesh.embedded_lookup import registry_answers

        port = self.settings.embedded_port
        url = embedded_registry_url(port)
        if port and await registry_answers(http, url):
            logger.info("joining the registry already running at %s", url)
            return url
        try:
            self.running = registry = await self._start()
        except OSError as exc:
            logger.warning(
                "cannot start the embedded registry on port %d (%s); will keep trying %s",
                port,
                exc.strerror or exc,
                url,
            )
            return url
        logger.info("started the embedded registry at %s", registry.url)
        return registry.url

    async def take_over(self, http: httpx2.AsyncClient) -> None:
        """Start the registry on the port when none answers there any more; nothing when one answers
        (another agent was first, or it was only a slow answer) or the port is held by something else (the
        heartbeat keeps trying)."""
        if self.running is not None:
            return
        from ..mesh.embedded_lookup import registry_answers

        url = embedded_registry_url(self.settings.embedded_port)
        if await registry_answers(http, url):
            return
        try:
            self.running = registry = await self._start()
        except OSError:
            return
        logger.info("the embedded registry at %s had stopped; this agent runs it now", registry.url)

    async def stop(self) -> None:
        running, self.running = self.running, None
        if running is not None:
            await running.stop()
