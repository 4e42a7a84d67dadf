"""Which catalog servers one request gets: the configured defaults plus the names the request asks for.

servers = select_servers(catalog, settings.mcp.default_servers, ["github"])
"""

from __future__ import annotations

from collections.abc import Iterable

from .definitions import McpServerDefinition
from .server_catalog import McpServerCatalog

__all__ = ["select_servers"]


def select_servers(
    catalog: McpServerCatalog, defaults: Iterable[str] = (), requested: Iterable[str] | None = None
) -> dict[str, McpServerDefinition]:
    """`defaults` then `requested`, resolved in that order (each name once); every unknown name is listed in
    one CatalogError."""
    return catalog.resolve([*defaults, *(requested or ())])
