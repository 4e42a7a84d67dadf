"""The embedded registry as an agent uses it when no registry URL is set.

The agent looks for a registry on 127.0.0.1 at `registry.embedded_port`: if one answers there (another
agent started it, or `mesh registry` runs), it joins it; otherwise it starts one in its own process.
When the registry it joined stops (the agent that ran it stopped), the first agent whose heartbeat fails
starts it again on the same port (`take_over`), and every agent registers there again.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx2

from ..config.environment import embedded_registry_url

__all__ = ["embedded_registry_url", "ensure_embedded_registry", "registry_answers", "take_over"]

logger = logging.getLogger("mesh_framework.mesh")

REGISTRY_TASK = "mesh-registry"  # the name registry/server.py gives the task serving the registry


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


async def registry_answers(http: httpx2.AsyncClient, url: str) -> bool:
    """True when a registry (ours or MCP Mesh's: `/health` names the service) answers at `url`; an agent
    or any other server holding the port is not one."""
    try:
        response = await http.get(url + "/health", timeout=0.5)
        body = response.json() if response.status_code == 200 else None
    except (httpx2.HTTPError, ValueError):
        return False
    return isinstance(body, dict) and "registry" in str(body.get("service", ""))


async def ensure_embedded_registry(
    http: httpx2.AsyncClient, port: int, *, token: str | None = None, audit_history: int
) -> tuple[str, Any]:
    """The registry URL to join, and the registry this process started (None if it joined one)."""
    from ..registry import start_registry

    url = embedded_registry_url(port)
    if port and await registry_answers(http, url):
        logger.info("joining the registry already running at %s", url)
        return url, None
    _quiet_registry_server()
    try:
        registry = await start_registry("127.0.0.1", port, token=token, audit_history=audit_history)
    except OSError as exc:
        logger.warning(
            "cannot start the embedded registry on port %d (%s); will keep trying %s",
            port,
            exc.strerror or exc,
            url,
        )
        return url, None
    logger.info("started the embedded registry at %s", registry.url)
    return registry.url, registry


async def take_over(
    http: httpx2.AsyncClient, port: int, *, token: str | None = None, audit_history: int
) -> Any:
    """Start the embedded registry on `port` when none answers there any more; the registry this process
    now runs, or None (one answers: another agent was first, or it was only a slow answer; or the port is
    held by something else, and the heartbeat keeps trying)."""
    from ..registry import start_registry

    url = embedded_registry_url(port)
    if await registry_answers(http, url):
        return None
    _quiet_registry_server()
    try:
        registry = await start_registry("127.0.0.1", port, token=token, audit_history=audit_history)
    except OSError:
        return None
    logger.info("the embedded registry at %s had stopped; this agent runs it now", registry.url)
    return registry
