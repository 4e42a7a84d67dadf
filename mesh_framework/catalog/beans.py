"""The catalog's beans (gated by catalog/auto_configuration.py): the catalog of `mcp.servers` and
`mcp.catalog` files, read while the app loads, with every server named elsewhere in the settings checked
against it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..config.loader import LoadedSettings
from ..di.configuration import bean, configuration
from ..errors import ConfigError
from ..extension import LoadPlan, ScannedApp
from .auto_configuration import names_servers
from .server_catalog import McpServerCatalog, catalog_from_settings

__all__ = ["CatalogBeans", "McpCatalogPlan", "server_catalog"]


def server_catalog(
    loaded: LoadedSettings, config_dir: Path | None, environ: Mapping[str, str] | None
) -> McpServerCatalog:
    """The MCP server catalog of `mcp.servers` and `mcp.catalog`; every server named elsewhere in the
    settings (`mcp.gateway`, `mcp.default_servers`) must be in it (ConfigError listing those that are not)."""
    catalog = catalog_from_settings(loaded, config_dir, environ)
    problems = []
    for key in ("gateway", "default_servers"):
        missing = [name for name in getattr(loaded.settings.mcp, key) if not catalog.contains(name)]
        if missing:
            known = ", ".join(catalog) or "none"
            problems.append(
                f"mcp.{key} = {missing!r} (from {loaded.origin_of('mcp.' + key)}): no such MCP server in "
                f"the catalog (it has: {known}); add it to mcp.servers or a catalog file"
            )
    if problems:
        raise ConfigError(problems)
    return catalog


class McpCatalogPlan(LoadPlan):
    """The catalog read while the app loads; its problems are problems of files or settings."""

    config_problems = True

    def __init__(self, app: ScannedApp) -> None:
        self.catalog = McpServerCatalog()  # an app that only asks for it by type: empty
        if names_servers(app.settings):
            try:
                self.catalog = server_catalog(app.loaded, app.config_dir, app.environ)
            except ConfigError as exc:
                self.problems = exc.problems


@configuration
class CatalogBeans:
    @bean
    def mcp_catalog_plan(self, app: ScannedApp) -> McpCatalogPlan:
        return McpCatalogPlan(app)

    @bean
    def mcp_catalog(self, plan: McpCatalogPlan) -> McpServerCatalog:
        return plan.catalog
