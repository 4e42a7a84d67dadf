"""mesh_framework: a Spring-Boot-style dependency-injection framework for MCP mesh agents."""

from .app import MeshApplication
from .config.loader import LoadedSettings
from .config.settings import MeshSettings
from .content import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    ToolResult,
)
from .decorators import component, config_properties, mesh_agent, mesh_tool
from .di.wiring import Qualifier
from .errors import ConfigError, MeshError, ToolExecutionError, WiringError
from .injectables import McpMeshTool, MeshLlmAgent
from .input_required import InputRequired, elicit, list_roots, sample
from .mesh.proxy_factory import McpMeshToolProxyFactory
from .specs import Selector
from .tools.context import ToolContext
from .tools.registry import MeshToolWrapperRegistry
from .tools.wrapper import MeshToolWrapper

__version__ = "0.1.0"

__all__ = [
    "AudioContent",
    "ConfigError",
    "EmbeddedResource",
    "ImageContent",
    "InputRequired",
    "LoadedSettings",
    "McpMeshTool",
    "McpMeshToolProxyFactory",
    "MeshApplication",
    "MeshError",
    "MeshLlmAgent",
    "MeshSettings",
    "MeshToolWrapper",
    "MeshToolWrapperRegistry",
    "Qualifier",
    "ResourceLink",
    "Selector",
    "TextContent",
    "ToolContext",
    "ToolExecutionError",
    "ToolResult",
    "WiringError",
    "__version__",
    "component",
    "config_properties",
    "elicit",
    "list_roots",
    "mesh_agent",
    "mesh_tool",
    "sample",
]
