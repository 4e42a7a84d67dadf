"""The MCP server catalog: servers described once (stdio, SSE, streamable HTTP), resolved by name and
translated into every client's configuration format.

The names below are loaded on first use (PEP 562): an app that names no MCP server loads none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .definitions import HttpDefinition, McpServerDefinition, SseDefinition, StdioDefinition
    from .loading import load_catalog, parse_server
    from .masking import masked
    from .runner import (
        AgentRunResult,
        ClaudeCodeRunner,
        CodingAgentError,
        CodingAgentRunner,
        GeminiCliRunner,
    )
    from .selection import select_servers
    from .server_catalog import CatalogBuilder, McpServerCatalog, catalog_from_settings
    from .translators import (
        FORMATS,
        anthropic_toolsets,
        to_anthropic,
        to_claude_code,
        to_gemini,
        to_openai,
        to_vscode,
        translate,
    )

__all__ = [
    "AgentRunResult",
    "CatalogBuilder",
    "ClaudeCodeRunner",
    "CodingAgentError",
    "CodingAgentRunner",
    "FORMATS",
    "GeminiCliRunner",
    "HttpDefinition",
    "McpServerCatalog",
    "McpServerDefinition",
    "SseDefinition",
    "StdioDefinition",
    "anthropic_toolsets",
    "catalog_from_settings",
    "load_catalog",
    "masked",
    "parse_server",
    "select_servers",
    "to_anthropic",
    "to_claude_code",
    "to_gemini",
    "to_openai",
    "to_vscode",
    "translate",
]

_LOCATIONS = {
    "AgentRunResult": ".runner",
    "CatalogBuilder": ".server_catalog",
    "ClaudeCodeRunner": ".runner",
    "CodingAgentError": ".runner",
    "CodingAgentRunner": ".runner",
    "FORMATS": ".translators",
    "GeminiCliRunner": ".runner",
    "HttpDefinition": ".definitions",
    "McpServerCatalog": ".server_catalog",
    "McpServerDefinition": ".definitions",
    "SseDefinition": ".definitions",
    "StdioDefinition": ".definitions",
    "anthropic_toolsets": ".translators",
    "catalog_from_settings": ".server_catalog",
    "load_catalog": ".loading",
    "masked": ".masking",
    "parse_server": ".loading",
    "select_servers": ".selection",
    "to_anthropic": ".translators",
    "to_claude_code": ".translators",
    "to_gemini": ".translators",
    "to_openai": ".translators",
    "to_vscode": ".translators",
    "translate": ".translators",
}


__getattr__, __dir__ = lazy_exports(__name__, _LOCATIONS, globals())
