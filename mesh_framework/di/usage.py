"""Which optional features an agent uses, decided from its settings and scanned tools before anything is
built: the container builds (and imports) a feature's beans only when it is used."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..config.loader import LoadedSettings
from ..config.settings import MeshSettings
from .scan import ScanResult

__all__ = ["built_or_loaded", "names_servers", "serves_features"]


def names_servers(settings: MeshSettings) -> bool:
    """The settings name an MCP server (`mcp.servers`, `mcp.catalog`, `mcp.gateway`, `mcp.default_servers`);
    otherwise the catalog is empty and its modules are not loaded."""
    mcp = settings.mcp
    return bool(mcp.servers or mcp.catalog or mcp.gateway or mcp.default_servers)


def serves_features(loaded: LoadedSettings, scan: ScanResult, bases: Iterable[Path | None]) -> bool:
    """The app may serve prompts or resources: a `@mesh_prompt`/`@mesh_resource`/`@completer`, static
    files, prompt folders set explicitly, or a default prompt folder that exists in the config folder or
    the app package (`bases`). Otherwise their planning and catalog modules are not loaded."""
    settings = loaded.settings
    if scan.features or settings.resources.files or loaded.origin_of("prompts.folders") != "default":
        return True
    folders = [base for base in bases if base is not None]
    for listed in settings.prompts.folders:
        path = Path(listed)
        candidates = [path] if path.is_absolute() else [base / path for base in folders]
        if any(candidate.is_dir() for candidate in candidates):
            return True
    return False


def built_or_loaded(provider: Any, module: str) -> bool:
    """True if the singleton `provider` may hold an instance: it is overridden, or the module of its class
    is loaded (it cannot have been built otherwise). Used to release beans without building them."""
    return bool(provider.overridden) or module in sys.modules
