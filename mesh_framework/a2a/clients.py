"""`A2aClients`: the agent's `A2aClient`s, one per peer name, built from `a2a.peers` settings."""

from __future__ import annotations

import logging
from typing import Any

from ..config.settings import A2aPeerSettings, MeshSettings
from .client import A2aClient

__all__ = ["A2aClients"]

logger = logging.getLogger("mesh_framework.a2a")


class A2aClients:
    """Builds each peer's client once; a peer without a URL is looked up in the registry's A2A surfaces
    (`GET /a2a/agents`, as MCP Mesh's registry serves them) on first use."""

    def __init__(self, settings: MeshSettings, factory: Any) -> None:
        self._settings = settings
        self._factory = factory  # the proxy factory: its pooled HTTP client
        self._clients: dict[str, A2aClient] = {}

    def __getitem__(self, peer: str) -> A2aClient:
        """`clients[peer]`, as a tool's `A2aClient` parameter is injected (tools/builder.py)."""
        return self.client(peer)

    def client(self, peer: str) -> A2aClient:
        found = self._clients.get(peer)
        if found is None:
            config = self._settings.a2a.peers.get(peer) or A2aPeerSettings()
            found = A2aClient(
                peer,
                url=config.url,
                http=lambda: self._factory.http,
                token=config.token.get_secret_value() if config.token else None,
                dialect=config.dialect,
                timeout=config.timeout,
                locate=self._locate,
                auth=self._auth(peer),
            )
            self._clients[peer] = found
        return found

    def _auth(self, peer: str) -> Any:
        """The peer's OAuth client (`auth.dependency_clients.<peer>`), asked of the core's credentials."""
        credential = self._factory.credentials.for_named(peer)
        return credential.auth() if credential is not None and credential.renewable else None

    @property
    def consumers(self) -> bool:
        return bool(self._clients)

    async def _locate(self, skill: str) -> str | None:
        """The URL of an A2A surface serving `skill`, from the registry (None when none does)."""
        registry = self._settings.registry.url
        if not registry:
            return None
        try:
            response = await self._factory.http.get(registry.rstrip("/") + "/a2a/agents", timeout=5.0)
            surfaces = response.json().get("surfaces", []) if response.status_code == 200 else []
        except Exception as exc:
            logger.warning("A2A peer '%s': the registry's A2A surfaces cannot be read: %r", skill, exc)
            return None
        for surface in surfaces:
            if isinstance(surface, dict) and surface.get("skill_id") == skill:
                url = surface.get("public_url") or _local_url(surface)
                if url:
                    return str(url)
        return None


def _local_url(surface: dict[str, Any]) -> str | None:
    endpoint = surface.get("endpoint") or surface.get("agent_endpoint")
    path = surface.get("path")
    if isinstance(endpoint, str) and isinstance(path, str):
        return endpoint.rstrip("/") + path
    return None
