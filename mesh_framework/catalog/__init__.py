"""The MCP server catalog: servers described once (stdio, SSE, streamable HTTP), resolved by name and
translated into every client's configuration format."""

from .catalog import CatalogBuilder, McpServerCatalog, catalog_from_settings
from .definitions import HttpDefinition, McpServerDefinition, SseDefinition, StdioDefinition
from .loading import load_catalog, parse_server
from .masking import masked
from .runner import AgentRunResult, ClaudeCodeRunner, CodingAgentError, CodingAgentRunner, GeminiCliRunner
from .selection import select_servers
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
