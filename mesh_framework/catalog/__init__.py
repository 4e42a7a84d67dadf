"""The MCP server catalog: servers described once (stdio, SSE, streamable HTTP), resolved by name and
translated into every client's configuration format."""

from .catalog import CatalogBuilder, McpServerCatalog
from .definitions import HttpDefinition, McpServerDefinition, SseDefinition, StdioDefinition

__all__ = [
    "CatalogBuilder",
    "HttpDefinition",
    "McpServerCatalog",
    "McpServerDefinition",
    "SseDefinition",
    "StdioDefinition",
]
