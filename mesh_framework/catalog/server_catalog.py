"""`McpServerCatalog`: named MCP server definitions, described once and resolved by name.

Usage::

    catalog = McpServerCatalog.from_json("config/mcp-servers.json")
    servers = catalog.resolve(["filesystem", "weather"])   # every missing name listed in one error
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from ..errors import CatalogError
from .definitions import McpServerDefinition
from .loading import read_catalog, read_settings_catalog

if TYPE_CHECKING:
    from ..config.loader import LoadedSettings

__all__ = ["CatalogBuilder", "McpServerCatalog", "catalog_from_settings", "load_catalog_with_origins"]


class McpServerCatalog:
    """An immutable mapping of server name to `McpServerDefinition`, in the order the servers were added.

    `origins` optionally says where each server was described (a file, or a settings origin such as
    `config/application.yaml:12`); `origin_of(name)` reads it.
    """

    __slots__ = ("_origins", "_servers")

    def __init__(
        self,
        servers: Mapping[str, McpServerDefinition] | None = None,
        *,
        origins: Mapping[str, str] | None = None,
    ) -> None:
        checked: dict[str, McpServerDefinition] = {}
        for name, definition in (servers or {}).items():
            if not isinstance(name, str) or not name.strip():
                raise CatalogError(f"MCP server names must be non-empty strings, not {name!r}")
            if not isinstance(definition, McpServerDefinition):
                raise CatalogError(
                    f"MCP server '{name}': expected a StdioDefinition, SseDefinition or HttpDefinition, "
                    f"not {type(definition).__name__}"
                )
            checked[name] = definition
        self._servers: Mapping[str, McpServerDefinition] = MappingProxyType(checked)
        self._origins: Mapping[str, str] = MappingProxyType(
            {n: o for n, o in (origins or {}).items() if n in checked}
        )

    @classmethod
    def of(cls, servers: Mapping[str, McpServerDefinition]) -> McpServerCatalog:
        return cls(servers)

    @classmethod
    def builder(cls) -> CatalogBuilder:
        return CatalogBuilder()

    @classmethod
    def from_json(cls, path: str | Path, environ: Mapping[str, str] | None = None) -> McpServerCatalog:
        """Load a catalog file, or every `*.json` file of a folder (merged; a name in two files is an
        error naming both). `${VAR}` and `${VAR:-default}` are resolved from `environ` (default: the
        process environment)."""
        return load_catalog_with_origins([Path(path)], environ)

    def get_all(self) -> Mapping[str, McpServerDefinition]:
        return self._servers

    def get(self, name: str) -> McpServerDefinition | None:
        return self._servers.get(name)

    def contains(self, name: str) -> bool:
        return name in self._servers

    def origin_of(self, name: str) -> str | None:
        """Where the server `name` was described (file or settings origin), when known."""
        return self._origins.get(name)

    def resolve(self, names: Iterable[str]) -> dict[str, McpServerDefinition]:
        """The definitions named, in the order asked; every unknown name is listed in one CatalogError."""
        wanted = list(dict.fromkeys(names))
        missing = [n for n in wanted if n not in self._servers]
        if missing:
            known = ", ".join(self._servers) or "none"
            raise CatalogError(
                f"unknown MCP server(s): {', '.join(missing)} (the catalog has: {known}); add them to "
                "mcp.servers in application.yaml or to a catalog file"
            )
        return {n: self._servers[n] for n in wanted}

    def merged(self, other: McpServerCatalog) -> McpServerCatalog:
        """This catalog with `other`'s servers added; `other` wins where both name a server."""
        origins = {n: o for n, o in self._origins.items() if n not in other._servers}
        return McpServerCatalog({**self._servers, **other._servers}, origins={**origins, **other._origins})

    def __contains__(self, name: object) -> bool:
        return name in self._servers

    def __iter__(self) -> Iterator[str]:
        return iter(self._servers)

    def __len__(self) -> int:
        return len(self._servers)

    def __repr__(self) -> str:
        return f"McpServerCatalog({', '.join(self._servers)})"


class CatalogBuilder:
    """`McpServerCatalog.builder().add("fs", StdioDefinition("npx", [...])).build()`."""

    def __init__(self) -> None:
        self._servers: dict[str, McpServerDefinition] = {}

    def add(self, name: str, definition: McpServerDefinition) -> CatalogBuilder:
        if name in self._servers:
            raise CatalogError(f"MCP server '{name}' is added twice to the catalog builder")
        self._servers[name] = definition
        return self

    def build(self) -> McpServerCatalog:
        return McpServerCatalog(self._servers)


def load_catalog_with_origins(
    paths: Iterable[str | Path], environ: Mapping[str, str] | None = None
) -> McpServerCatalog:
    """The catalog of these files (a folder stands for its `*.json` files), knowing each server's file."""
    servers, origins = read_catalog(paths, environ)
    return McpServerCatalog(servers, origins=origins)


def catalog_from_settings(
    loaded: LoadedSettings, config_dir: Path | None, environ: Mapping[str, str] | None = None
) -> McpServerCatalog:
    """The catalog of `mcp.catalog` files (relative paths against `config_dir`, else the working
    directory) and `mcp.servers` entries. A settings entry replaces a file entry of the same name."""
    servers, origins = read_settings_catalog(loaded, config_dir, environ)
    return McpServerCatalog(servers, origins=origins)
