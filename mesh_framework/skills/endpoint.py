"""The skills extension on the agent's endpoint (`io.modelcontextprotocol/skills`, SEP-2640): declared
with `directoryRead`, with the `resources` capability it depends on; `skills/list`, `skills/get` and
`resources/directory/read` answered from the `SkillCatalog`, whose files are resources."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..extension import EndpointExtension, EndpointMethod
from .skill_catalog import SkillCatalog

__all__ = ["EXTENSION_ID", "SkillsExtension"]

EXTENSION_ID = "io.modelcontextprotocol/skills"
# 2026-07-28's caching hints (SEP-2549), as on the agent's other lists: fixed while it runs, but private
# to its configuration.
_CACHE_HINTS = {"ttlMs": 0, "cacheScope": "private"}


class SkillsExtension(EndpointExtension):
    """Serves a `SkillCatalog` as the skills extension."""

    def __init__(self, catalog: SkillCatalog) -> None:
        self.catalog = catalog

    def capabilities(self) -> Mapping[str, Any]:
        return {
            "extensions": {EXTENSION_ID: {"directoryRead": True}},
            "resources": {"listChanged": False, "subscribe": False},
        }

    def methods(self) -> Mapping[str, EndpointMethod]:
        return {
            "skills/list": self._list,
            "skills/get": self._get,
            "resources/directory/read": self._read_directory,
        }

    def resources(self) -> SkillCatalog:
        return self.catalog

    async def _list(self, params: Mapping[str, Any], modern: bool) -> dict[str, Any]:
        listed = self.catalog.list_skills(params)
        return {**listed, **_CACHE_HINTS} if modern else listed

    async def _get(self, params: Mapping[str, Any], modern: bool) -> dict[str, Any]:
        got = self.catalog.get_skill(params)
        return {**got, **_CACHE_HINTS} if modern else got

    async def _read_directory(self, params: Mapping[str, Any], modern: bool) -> dict[str, Any]:
        return self.catalog.read_directory(params)
