"""The catalog's tool callbacks and the catalog gateway as an auto-configuration: an app that uses MCP
servers (catalog/auto_configuration.py) gets their callbacks, connected on first use (or reached before
serving with `mcp.fail_fast`), and with `mcp.gateway` the gateway re-serving their tools
(callbacks/beans.py, callbacks/catalog_gateway_beans.py); any other loads none of their modules."""

from __future__ import annotations

from ..catalog.auto_configuration import uses_catalog
from ..di.conditions import ConditionContext, conditional
from ..di.configuration import configuration, imports

__all__ = ["CallbacksAutoConfiguration", "CatalogGatewayUsed", "serves_gateway"]


def serves_gateway(context: ConditionContext) -> tuple[bool, str]:
    """`mcp.gateway` names servers whose tools this agent re-serves."""
    servers = context.settings.mcp.gateway
    if servers:
        return True, f"mcp.gateway = {list(servers)!r}"
    return False, "mcp.gateway is empty"


@configuration
@conditional(serves_gateway, "mcp.gateway names servers")
@imports("mesh_framework.callbacks.catalog_gateway_beans:GatewayBeans")
class CatalogGatewayUsed:
    """Gates the catalog gateway's beans (callbacks/catalog_gateway_beans.py) on `mcp.gateway`."""


@configuration
@conditional(uses_catalog, "the settings name MCP servers, or the app asks for the catalog by type")
@imports("mesh_framework.callbacks.beans:CallbackBeans", CatalogGatewayUsed)
class CallbacksAutoConfiguration:
    """Gates the catalog callbacks' beans (callbacks/beans.py) on the app using MCP servers."""
