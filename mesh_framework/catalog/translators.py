"""Client resolves, consumer translates: resolved definitions in each consumer's own configuration format.

    translate("claude", servers)      # {"mcpServers": {...}} for `claude --mcp-config`
    translate("vscode", servers)      # {"servers": {...}} for .vscode/mcp.json
    translate("gemini", servers)      # {"mcpServers": {...}} for Gemini CLI's settings.json
    translate("anthropic", servers)   # the Messages API's `mcp_servers` list (URL servers only)
    translate("openai", servers)      # Responses API `tools` of type "mcp" (URL servers only)

Values are written as resolved (secrets included): the output is meant to be handed to the consumer.
`overrides` are entries already in the consumer's format; one replaces the translated entry of its name.
"""

from __future__ import annotations

import copy
import logging
import re
from collections.abc import Callable, Mapping
from typing import Any

from ..config.loader import is_secret_header
from ..errors import CatalogError
from .definitions import McpServerDefinition, StdioDefinition
from .server_catalog import McpServerCatalog

__all__ = [
    "FORMATS",
    "anthropic_toolsets",
    "to_anthropic",
    "to_claude_code",
    "to_gemini",
    "to_openai",
    "to_vscode",
    "translate",
]

logger = logging.getLogger("mesh_framework.catalog")

FORMATS = ("claude", "vscode", "gemini", "anthropic", "openai")
"""The formats `translate` knows: three client configuration files, two vendor APIs."""

Servers = Mapping[str, McpServerDefinition] | McpServerCatalog
Overrides = Mapping[str, Mapping[str, Any]] | None
_LABEL = re.compile(r"[^A-Za-z0-9_-]")


def to_claude_code(servers: Servers, *, overrides: Overrides = None) -> dict[str, Any]:
    """Claude Code's `--mcp-config` file (and `.mcp.json`): `{"mcpServers": {name: entry}}`."""
    return {"mcpServers": _entries(servers, overrides, _typed_entry)}


def to_vscode(servers: Servers, *, overrides: Overrides = None) -> dict[str, Any]:
    """VS Code's `mcp.json`: `{"servers": {name: entry}}` (no `inputs`: values are already resolved)."""
    return {"servers": _entries(servers, overrides, _typed_entry)}


def to_gemini(servers: Servers, *, overrides: Overrides = None) -> dict[str, Any]:
    """Gemini CLI's `settings.json` section: stdio as command/args/env, SSE as `url`, HTTP as `httpUrl`."""
    return {"mcpServers": _entries(servers, overrides, _gemini_entry)}


def to_anthropic(
    servers: Servers, *, skip_local: bool = False, overrides: Overrides = None
) -> list[dict[str, Any]]:
    """The Messages API's `mcp_servers`: `{"type": "url", "url", "name", "authorization_token"?}`.

    An `Authorization: Bearer X` header becomes `authorization_token`. Other headers cannot be carried:
    credential headers (X-Api-Key, Cookie, ...) are a CatalogError (give an override entry instead), the
    others are left out with a warning. Pair with `anthropic_toolsets` for the
    `mcp-client-2025-11-20` beta, which also wants one `mcp_toolset` tool per server.
    """
    return _api_entries("Anthropic", servers, skip_local, overrides, _anthropic_entry)


def anthropic_toolsets(mcp_servers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One `{"type": "mcp_toolset", "mcp_server_name": name}` tool per `mcp_servers` entry (all tools on)."""
    return [{"type": "mcp_toolset", "mcp_server_name": entry["name"]} for entry in mcp_servers]


def to_openai(
    servers: Servers,
    *,
    skip_local: bool = False,
    overrides: Overrides = None,
    require_approval: str | Mapping[str, Any] | None = "never",
) -> list[dict[str, Any]]:
    """Responses API tools: `{"type": "mcp", "server_label", "server_url", "headers"?, "require_approval"?}`.

    `server_label` is the name with characters outside `[A-Za-z0-9_-]` replaced by `_` (two names that
    end up alike are a CatalogError). `require_approval` defaults to "never" (unattended tool loops);
    None leaves it out (the API's default asks for approval).
    """

    def entry(name: str, definition: McpServerDefinition) -> dict[str, Any]:
        tool = _openai_entry(name, definition)
        if require_approval is not None:
            tool["require_approval"] = copy.deepcopy(require_approval)
        return tool

    tools = _api_entries("OpenAI", servers, skip_local, overrides, entry)
    seen: dict[str, int] = {}
    for tool in tools:
        label = tool.get("server_label")
        if isinstance(label, str):
            seen[label] = seen.get(label, 0) + 1
    clashes = [label for label, count in seen.items() if count > 1]
    if clashes:
        raise CatalogError(
            f"OpenAI server_label {', '.join(map(repr, clashes))} would name two MCP servers (labels keep "
            "only [A-Za-z0-9_-]); rename one of the servers"
        )
    return tools


_Translator = Callable[..., dict[str, Any] | list[dict[str, Any]]]
_TRANSLATORS: dict[str, _Translator] = {
    "claude": to_claude_code,
    "vscode": to_vscode,
    "gemini": to_gemini,
    "anthropic": to_anthropic,
    "openai": to_openai,
}
_API_FORMATS = ("anthropic", "openai")


def translate(
    format: str, servers: Servers, *, skip_local: bool = False, overrides: Overrides = None
) -> dict[str, Any] | list[dict[str, Any]]:
    """`servers` in the consumer format `format` (one of FORMATS). `skip_local` leaves stdio servers out of
    the API formats (logged once) instead of failing; the client formats carry every server."""
    translator = _TRANSLATORS.get(format)
    if translator is None:
        raise CatalogError(f"unknown format {format!r}; the formats are {', '.join(FORMATS)}")
    if format in _API_FORMATS:
        return translator(servers, skip_local=skip_local, overrides=overrides)
    return translator(servers, overrides=overrides)


# -- entries --------------------------------------------------------------------------------------


def _definitions(servers: Servers) -> Mapping[str, McpServerDefinition]:
    return servers.get_all() if isinstance(servers, McpServerCatalog) else servers


def _entries(
    servers: Servers,
    overrides: Overrides,
    make: Callable[[str, McpServerDefinition], dict[str, Any]],
) -> dict[str, Any]:
    overrides = overrides or {}
    return {
        name: copy.deepcopy(dict(overrides[name])) if name in overrides else make(name, definition)
        for name, definition in _definitions(servers).items()
    }


def _api_entries(
    vendor: str,
    servers: Servers,
    skip_local: bool,
    overrides: Overrides,
    make: Callable[[str, McpServerDefinition], dict[str, Any]],
) -> list[dict[str, Any]]:
    overrides = overrides or {}
    entries: list[dict[str, Any]] = []
    skipped: list[str] = []
    problems: list[str] = []
    for name, definition in _definitions(servers).items():
        if name in overrides:
            entries.append(copy.deepcopy(dict(overrides[name])))
        elif definition.is_local and skip_local:
            skipped.append(name)
        elif definition.is_local:
            problems.append(
                f"MCP server '{name}' is a local process (stdio) and the {vendor} API cannot start local "
                "processes; serve it over HTTP, give an override entry, or skip local servers (--skip-local)"
            )
        else:
            try:
                entries.append(make(name, definition))
            except CatalogError as exc:
                problems.extend(exc.problems)
    if problems:
        raise CatalogError(problems)
    if skipped:
        logger.warning(
            "%s API: left out local (stdio) MCP server(s) %s (the vendor cannot start local processes)",
            vendor,
            ", ".join(skipped),
        )
    return entries


def _typed_entry(_name: str, definition: McpServerDefinition) -> dict[str, Any]:
    """Claude Code's and VS Code's entry: `type` plus command/args/env (cwd when set) or url/headers."""
    if isinstance(definition, StdioDefinition):
        entry: dict[str, Any] = {
            "type": "stdio",
            "command": definition.command,
            "args": list(definition.args),
            "env": dict(definition.env),
        }
        if definition.cwd:
            entry["cwd"] = definition.cwd
        return entry
    data = definition.to_dict()
    return {
        "type": data["type"],
        "url": data["url"],
        **({"headers": data["headers"]} if "headers" in data else {}),
    }


def _gemini_entry(_name: str, definition: McpServerDefinition) -> dict[str, Any]:
    if isinstance(definition, StdioDefinition):
        entry = _typed_entry(_name, definition)
        del entry["type"]
        return entry
    data = definition.to_dict()
    entry = {"httpUrl" if data["type"] == "http" else "url": data["url"]}
    if "headers" in data:
        entry["headers"] = data["headers"]
    return entry


def _anthropic_entry(name: str, definition: McpServerDefinition) -> dict[str, Any]:
    data = definition.to_dict()
    entry: dict[str, Any] = {"type": "url", "url": data["url"], "name": name}
    problems: list[str] = []
    credentials: list[str] = []
    dropped: list[str] = []
    for header, value in data.get("headers", {}).items():
        if header.lower() != "authorization":
            (credentials if is_secret_header(header) else dropped).append(header)
            continue
        scheme, _, token = value.strip().partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            entry["authorization_token"] = token.strip()
        else:
            problems.append(
                f"MCP server '{name}': the Anthropic API takes only a bearer token, and the Authorization "
                "header is not 'Bearer TOKEN'; give an override entry"
            )
    if credentials:
        problems.append(
            f"MCP server '{name}': the Anthropic API carries only an 'Authorization: Bearer' token, not the "
            f"credential header(s) {', '.join(credentials)}; give an override entry"
        )
    if problems:
        raise CatalogError(problems)
    if dropped:
        logger.warning(
            "Anthropic API: MCP server '%s' loses its header(s) %s (the API carries only a bearer token)",
            name,
            ", ".join(dropped),
        )
    return entry


def _openai_entry(name: str, definition: McpServerDefinition) -> dict[str, Any]:
    data = definition.to_dict()
    entry: dict[str, Any] = {"type": "mcp", "server_label": _LABEL.sub("_", name), "server_url": data["url"]}
    if "headers" in data:
        entry["headers"] = data["headers"]
    return entry
