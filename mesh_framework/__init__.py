"""mesh_framework: a Spring-Boot-style dependency-injection framework for MCP mesh agents."""

import gc as _gc

# Importing the framework creates many long-lived objects (models, classes, compiled patterns); garbage
# collections in the middle of it find nothing to free and cost about a fifth of the import time. At the
# end they are frozen (kept out of later collections), or the first collection after the import walks
# them all once more (about a tenth of the import time) only to find them alive.
_collecting = _gc.isenabled()
_gc.disable()

from .app import MeshApplication
from .callbacks import (
    FunctionToolCallback,
    McpToolCallbackProvider,
    ToolCallback,
    ToolCallbackProvider,
    ToolDefinition,
    ToolsChanged,
)
from .catalog import HttpDefinition, McpServerCatalog, SseDefinition, StdioDefinition
from .command_tools import mcp_command
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
from .decorators import (
    completer,
    component,
    config_properties,
    mesh_agent,
    mesh_llm,
    mesh_prompt,
    mesh_resource,
    mesh_tool,
)
from .di.wiring import Qualifier
from .errors import CatalogError, ConfigError, MeshError, ToolExecutionError, WiringError
from .events import ApplicationEventPublisher, event_listener
from .health import Health, HealthIndicator, HealthStatus, health_indicator
from .injectables import McpMeshTool, MeshLlmAgent
from .input_required import InputRequired, elicit, list_roots, sample
from .jobs import JobCancelled, JobContext, MeshJob
from .llm.agent import LlmText, usage_of
from .llm.model import LlmError, LlmModel, LlmOutputError, LlmProviderError
from .llm.provider import MeshLlmRequest, mesh_llm_provider
from .llm.types import LlmUsage
from .mesh.proxy_factory import McpMeshToolProxyFactory
from .prompts.messages import PromptMessage
from .propagation import propagated_headers
from .specs import Selector
from .status import status_section
from .tools.context import ToolContext
from .tools.wrapper import MeshToolWrapper
from .tools.wrapper_registry import MeshToolWrapperRegistry

__version__ = "0.1.0"

__all__ = [
    "ApplicationEventPublisher",
    "AudioContent",
    "CatalogError",
    "ConfigError",
    "EmbeddedResource",
    "FunctionToolCallback",
    "Health",
    "HealthIndicator",
    "HealthStatus",
    "HttpDefinition",
    "ImageContent",
    "InputRequired",
    "JobCancelled",
    "JobContext",
    "LlmError",
    "LlmModel",
    "LlmOutputError",
    "LlmProviderError",
    "LlmText",
    "LlmUsage",
    "LoadedSettings",
    "McpMeshTool",
    "McpMeshToolProxyFactory",
    "McpServerCatalog",
    "McpToolCallbackProvider",
    "MeshApplication",
    "MeshError",
    "MeshJob",
    "MeshLlmAgent",
    "MeshLlmRequest",
    "MeshSettings",
    "MeshToolWrapper",
    "MeshToolWrapperRegistry",
    "PromptMessage",
    "Qualifier",
    "ResourceLink",
    "Selector",
    "SseDefinition",
    "StdioDefinition",
    "TextContent",
    "ToolCallback",
    "ToolCallbackProvider",
    "ToolContext",
    "ToolDefinition",
    "ToolExecutionError",
    "ToolResult",
    "ToolsChanged",
    "WiringError",
    "__version__",
    "completer",
    "component",
    "config_properties",
    "elicit",
    "event_listener",
    "health_indicator",
    "list_roots",
    "mcp_command",
    "mesh_agent",
    "mesh_llm",
    "mesh_llm_provider",
    "mesh_prompt",
    "mesh_resource",
    "mesh_tool",
    "propagated_headers",
    "sample",
    "status_section",
    "usage_of",
]

if _collecting:
    _gc.freeze()
    _gc.enable()
