"""Tool callbacks: one abstraction for every tool source (MCP servers of the catalog, mesh agents, local
functions), with providers that discover, filter, name uniquely, cache and announce changes.

The names below are loaded on first use (PEP 562): an app that uses no callback loads none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
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

_LOCATIONS = {
    "FunctionToolCallback": ".local",
    "HeaderSource": ".connection",
    "McpConnection": ".connection",
    "McpConnectionError": ".connection",
    "McpConnectionInfo": ".connection_info",
    "McpToolCallback": ".mcp",
    "McpToolCallbackProvider": ".mcp",
    "McpToolFilter": ".mcp",
    "MeshToolCallback": ".mesh",
    "MeshToolCallbackProvider": ".mesh",
    "StaticToolCallbackProvider": ".provider",
    "ToolCallback": ".definition",
    "ToolCallbackProvider": ".provider",
    "ToolContextMetaConverter": ".meta",
    "ToolDefinition": ".definition",
    "ToolNameClashError": ".naming",
    "ToolNameGenerator": ".naming",
    "ToolsChanged": ".provider",
    "sanitize_tool_name": ".naming",
}


__getattr__, __dir__ = lazy_exports(__name__, _LOCATIONS, globals())
