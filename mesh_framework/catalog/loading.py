"""PLACEHOLDER until the catalog loader lands (the helper writing loading.py replaces this file)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .catalog import McpServerCatalog
from .definitions import HttpDefinition, McpServerDefinition, SseDefinition, StdioDefinition
import json, os, re


def _sub(value: Any, environ: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return re.sub(
            r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}",
            lambda m: environ.get(m.group(1), m.group(2) or ""),
            value,
        )
    if isinstance(value, list):
        return [_sub(v, environ) for v in value]
    if isinstance(value, dict):
        return {k: _sub(v, environ) for k, v in value.items()}
    return value


def _parse(name: str, entry: dict[str, Any]) -> McpServerDefinition:
    kind = entry.get("type") or ("stdio" if "command" in entry else "http")
    if kind == "stdio":
        return StdioDefinition(
            entry["command"], entry.get("args", []), entry.get("env"), entry.get("cwd"), name=name
        )
    if kind == "sse":
        return SseDefinition(entry["url"], entry.get("headers"), name=name)
    return HttpDefinition(entry["url"], entry.get("headers"), name=name)


def load_catalog(
    paths: list[Path], environ: Mapping[str, str] | None = None
) -> dict[str, McpServerDefinition]:
    environ = os.environ if environ is None else environ
    out: dict[str, McpServerDefinition] = {}
    for path in paths:
        files = sorted(path.glob("*.json")) if path.is_dir() else [path]
        for file in files:
            data = json.loads(file.read_text())
            servers = data.get("mcpServers") or data.get("servers") or {}
            for name, entry in servers.items():
                out[name] = _parse(name, _sub(entry, environ))
    return out


def catalog_from_settings(
    loaded: Any, config_dir: Path | None, environ: Mapping[str, str]
) -> McpServerCatalog:
    mcp = loaded.settings.mcp
    base = config_dir or Path.cwd()
    servers = load_catalog([base / p for p in mcp.catalog], environ)
    for name, entry in mcp.servers.items():
        servers[name] = _parse(name, _sub(entry, environ))
    return McpServerCatalog(servers)
