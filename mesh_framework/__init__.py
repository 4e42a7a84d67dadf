"""mesh_framework: a Spring-Boot-style dependency-injection framework for MCP mesh agents.

The public names are loaded on first use (PEP 562), so `import mesh_framework` and the `mesh` command
import only the modules they touch. Importing the framework changes nothing in the process: garbage
collection is left as found (an agent's own `MeshApplication.serve` freezes what its start-up built).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports

if TYPE_CHECKING:
    from ._version import __version__
    from .a2a import A2aClient, A2aError, A2aEvent, A2aPeer, A2aTask, mesh_a2a
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
    from .decorators import completer, component, config_properties, mesh_agent, mesh_llm, mesh_tool
    from .di.conditions import (
        conditional,
        conditional_on_class,
        conditional_on_missing_bean,
        conditional_on_property,
        profile,
    )
    from .di.configuration import bean, configuration, imports
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
    from .media import MediaParam, MediaRef, MediaResult, MediaStore, media_result, save_upload
    from .mesh.proxy_factory import McpMeshToolProxyFactory
    from .prompts.decorator import mesh_prompt
    from .prompts.messages import PromptMessage
    from .propagation import propagated_headers
    from .resources.decorator import mesh_resource
    from .routes import mesh_route
    from .services import ServiceUnavailable, mesh_selector, mesh_service, selector
    from .specs import Selector
    from .status import status_section
    from .stream import Stream
    from .tools.context import ToolContext
    from .tools.wrapper import MeshToolWrapper
    from .tools.wrapper_registry import MeshToolWrapperRegistry


__all__ = [
    "A2aClient",
    "MediaParam",
    "MediaRef",
    "MediaResult",
    "MediaStore",
    "media_result",
    "save_upload",
    "A2aError",
    "A2aEvent",
    "A2aPeer",
    "A2aTask",
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
    "ServiceUnavailable",
    "SseDefinition",
    "StdioDefinition",
    "Stream",
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
    "bean",
    "completer",
    "component",
    "conditional",
    "conditional_on_class",
    "conditional_on_missing_bean",
    "conditional_on_property",
    "configuration",
    "imports",
    "config_properties",
    "elicit",
    "event_listener",
    "health_indicator",
    "list_roots",
    "mcp_command",
    "mesh_a2a",
    "mesh_agent",
    "mesh_llm",
    "mesh_llm_provider",
    "mesh_prompt",
    "mesh_resource",
    "mesh_route",
    "mesh_selector",
    "mesh_service",
    "mesh_tool",
    "profile",
    "propagated_headers",
    "sample",
    "selector",
    "status_section",
    "usage_of",
]

# Public name -> the module (relative to this package) that defines it.
_LOCATIONS: dict[str, str] = {
    "__version__": "._version",  # the installed package's metadata, read on first use
    "MeshApplication": ".app",
    "FunctionToolCallback": ".callbacks",
    "McpToolCallbackProvider": ".callbacks",
    "ToolCallback": ".callbacks",
    "ToolCallbackProvider": ".callbacks",
    "ToolDefinition": ".callbacks",
    "ToolsChanged": ".callbacks",
    "HttpDefinition": ".catalog",
    "McpServerCatalog": ".catalog",
    "SseDefinition": ".catalog",
    "StdioDefinition": ".catalog",
    "mcp_command": ".command_tools",
    "LoadedSettings": ".config.loader",
    "MeshSettings": ".config.settings",
    "AudioContent": ".content",
    "EmbeddedResource": ".content",
    "ImageContent": ".content",
    "ResourceLink": ".content",
    "TextContent": ".content",
    "ToolResult": ".content",
    "completer": ".decorators",
    "component": ".decorators",
    "config_properties": ".decorators",
    "mesh_agent": ".decorators",
    "mesh_llm": ".decorators",
    "mesh_prompt": ".prompts.decorator",
    "mesh_resource": ".resources.decorator",
    "mesh_tool": ".decorators",
    "Qualifier": ".di.wiring",
    "bean": ".di.configuration",
    "configuration": ".di.configuration",
    "imports": ".di.configuration",
    "profile": ".di.conditions",
    "conditional": ".di.conditions",
    "conditional_on_class": ".di.conditions",
    "conditional_on_missing_bean": ".di.conditions",
    "conditional_on_property": ".di.conditions",
    "CatalogError": ".errors",
    "ConfigError": ".errors",
    "A2aClient": ".a2a",
    "MediaParam": ".media",
    "MediaRef": ".media",
    "MediaResult": ".media",
    "MediaStore": ".media",
    "media_result": ".media",
    "save_upload": ".media",
    "A2aError": ".a2a",
    "A2aEvent": ".a2a",
    "A2aPeer": ".a2a",
    "A2aTask": ".a2a",
    "mesh_a2a": ".a2a",
    "MeshError": ".errors",
    "ToolExecutionError": ".errors",
    "WiringError": ".errors",
    "ApplicationEventPublisher": ".events",
    "event_listener": ".events",
    "Health": ".health",
    "HealthIndicator": ".health",
    "HealthStatus": ".health",
    "health_indicator": ".health",
    "McpMeshTool": ".injectables",
    "MeshLlmAgent": ".injectables",
    "InputRequired": ".input_required",
    "elicit": ".input_required",
    "list_roots": ".input_required",
    "sample": ".input_required",
    "JobCancelled": ".jobs",
    "JobContext": ".jobs",
    "MeshJob": ".jobs",
    "LlmText": ".llm.agent",
    "usage_of": ".llm.agent",
    "LlmError": ".llm.model",
    "LlmModel": ".llm.model",
    "LlmOutputError": ".llm.model",
    "LlmProviderError": ".llm.model",
    "MeshLlmRequest": ".llm.provider",
    "mesh_llm_provider": ".llm.provider",
    "LlmUsage": ".llm.types",
    "McpMeshToolProxyFactory": ".mesh.proxy_factory",
    "PromptMessage": ".prompts.messages",
    "propagated_headers": ".propagation",
    "Selector": ".specs",
    "status_section": ".status",
    "mesh_route": ".routes",
    "ServiceUnavailable": ".services",
    "mesh_selector": ".services",
    "mesh_service": ".services",
    "selector": ".services",
    "Stream": ".stream",
    "ToolContext": ".tools.context",
    "MeshToolWrapper": ".tools.wrapper",
    "MeshToolWrapperRegistry": ".tools.wrapper_registry",
}


__getattr__, __dir__ = lazy_exports(__name__, _LOCATIONS, globals())
