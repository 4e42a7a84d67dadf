"""Tool callbacks: one abstraction for every tool source (MCP servers of the catalog, mesh agents, local
functions), with providers that discover, filter, name uniquely, cache and announce changes."""

from .connection import HeaderSource, McpConnection, McpConnectionError
from .connection_info import McpConnectionInfo
from .definition import ToolCallback, ToolDefinition
from .local import FunctionToolCallback
from .mcp import McpToolCallback, McpToolCallbackProvider, McpToolFilter
from .mesh import MeshToolCallback, MeshToolCallbackProvider
from .meta import ToolContextMetaConverter
from .naming import ToolNameClashError, ToolNameGenerator, sanitize_tool_name
from .provider import StaticToolCallbackProvider, ToolCallbackProvider, ToolsChanged

__all__ = [
    "FunctionToolCallback",
    "HeaderSource",
    "McpConnection",
    "McpConnectionError",
    "McpConnectionInfo",
    "McpToolCallback",
    "McpToolCallbackProvider",
    "McpToolFilter",
    "MeshToolCallback",
    "MeshToolCallbackProvider",
    "StaticToolCallbackProvider",
    "ToolCallback",
    "ToolCallbackProvider",
    "ToolContextMetaConverter",
    "ToolDefinition",
    "ToolNameClashError",
    "ToolNameGenerator",
    "ToolsChanged",
    "sanitize_tool_name",
]
