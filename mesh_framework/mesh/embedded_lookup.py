"""Where an agent finds the embedded registry when no registry URL is set: 127.0.0.1 at
`registry.embedded_port` (`embedded_registry_url`), and whether a registry answers there.

Running one in the agent's own process, and taking it over when the agent that ran it stops, is the
registry feature's (extension.EmbeddedRegistry, registry/in_process.py).
"""

from __future__ import annotations

import httpx2

from ..config.environment import embedded_registry_url

__all__ = ["embedded_registry_url", "registry_answers"]


async def registry_answers(http: httpx2.AsyncClient, url: str) -> bool:
    """True when a registry (ours or MCP Mesh's: `/health` names the service) answers at `url`; an agent
    or any other server holding the port is not one."""
    try:
        response = await http.get(url + "/health", timeout=0.5)
        body = response.json() if response.status_code == 200 else None
    except (httpx2.HTTPError, ValueError):
        return False
    return isinstance(body, dict) and "registry" in str(body.get("service", ""))
