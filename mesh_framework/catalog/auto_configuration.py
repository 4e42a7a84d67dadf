"""The MCP server catalog as an auto-configuration: an app whose settings name MCP servers (`mcp.servers`,
`mcp.catalog`, `mcp.gateway`, `mcp.default_servers`), or that asks for the catalog or its tool callbacks
by type, gets the catalog read while it loads (catalog/beans.py; its problems reported with the other
configuration problems); any other loads none of the catalog's modules."""

from __future__ import annotations

from ..config.settings import MeshSettings
from ..di.conditions import ConditionContext, conditional
from ..di.configuration import configuration, imports
from ..di.usage import asks_for

__all__ = ["CATALOG_TYPES", "CatalogAutoConfiguration", "names_servers", "uses_catalog"]

# The catalog's beans a component or tool may ask for by type (matched by name: nothing imported).
CATALOG_TYPES = (
    "mesh_framework.catalog.server_catalog.McpServerCatalog",
    "mesh_framework.callbacks.mcp.McpToolCallbackProvider",
)


def names_servers(settings: MeshSettings) -> bool:
    """The settings name an MCP server: `mcp.servers`, `mcp.catalog`, `mcp.gateway`, `mcp.default_servers`."""
    mcp = settings.mcp
    return bool(mcp.servers or mcp.catalog or mcp.gateway or mcp.default_servers)


def uses_catalog(context: ConditionContext) -> tuple[bool, str]:
    """The settings name MCP servers, or the app asks for the catalog or its callbacks by type."""
    if names_servers(context.settings):
        return True, "the settings name MCP servers"
    asked = asks_for(context.scan, CATALOG_TYPES) if context.scan is not None else None
    if asked is not None:
        return True, asked
    return False, "no MCP server in the settings, nothing asks for the catalog"


@configuration
@conditional(uses_catalog, "the settings name MCP servers, or the app asks for the catalog by type")
@imports("mesh_framework.catalog.beans:CatalogBeans")
class CatalogAutoConfiguration:
    """Gates the catalog's beans (catalog/beans.py) on the app using MCP servers."""
