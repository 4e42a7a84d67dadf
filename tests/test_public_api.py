"""The public surface is explicit and pinned; decorators only record metadata."""

from __future__ import annotations

import socket
import sys

import pytest

import mesh_framework
from mesh_framework import Selector, component, mesh_agent, mesh_tool
from mesh_framework.decorators import COMPONENT_ATTR, TOOL_ATTR, own_metadata

PUBLIC = {
    "AudioContent", "ConfigError", "EmbeddedResource", "ImageContent", "InputRequired", "LoadedSettings",
    "McpMeshTool", "McpMeshToolProxyFactory", "MeshApplication", "MeshError", "MeshLlmAgent", "MeshSettings",
    "MeshToolWrapper", "MeshToolWrapperRegistry", "Qualifier", "ResourceLink", "Selector", "TextContent",
    "ToolContext", "ToolExecutionError", "ToolResult", "WiringError", "__version__", "component",
    "config_properties", "elicit", "list_roots", "mesh_agent", "mesh_tool", "sample",
    "ApplicationEventPublisher", "CatalogError", "FunctionToolCallback", "HttpDefinition", "McpServerCatalog",
    "McpToolCallbackProvider", "SseDefinition", "StdioDefinition", "ToolCallback", "ToolCallbackProvider",
    "ToolDefinition", "ToolsChanged", "event_listener",
    "LlmError", "LlmModel", "LlmOutputError", "LlmProviderError", "LlmText", "LlmUsage", "mesh_llm",
    "usage_of", "mesh_llm_provider", "MeshLlmRequest", "propagated_headers",
    "JobCancelled", "JobContext", "MeshJob",
    "PromptMessage", "completer", "mesh_prompt", "mesh_resource",
    "mcp_command", "status_section",
    "Health", "HealthIndicator", "HealthStatus", "health_indicator",
}  # fmt: skip


def test_public_surface_is_pinned() -> None:
    assert set(mesh_framework.__all__) == PUBLIC
    for name in PUBLIC:
        assert hasattr(mesh_framework, name)


def test_importing_decorated_code_binds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a decorator touched the network")

    monkeypatch.setattr(socket.socket, "bind", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    sys.modules.pop("starter_app.tools", None)
    import starter_app.tools  # noqa: F401

    @mesh_agent(name="x", port=1)
    class Agent:
        pass

    @mesh_tool(dependencies=["a", Selector("b", tags=["+fast", ["x", "y"]], version=">=1")])
    def tool() -> None: ...

    spec = getattr(tool, TOOL_ATTR)
    assert [d.selector.capability for d in spec.dependencies] == ["a", "b"]
    assert spec.dependencies[1].selector.to_wire() == {
        "capability": "b",
        "tags": ["+fast", ["x", "y"]],
        "version": ">=1",
    }


def test_component_marks_are_not_inherited() -> None:
    @component
    class Base:
        pass

    class Child(Base):
        pass

    assert own_metadata(Base, COMPONENT_ATTR) is not None
    assert own_metadata(Child, COMPONENT_ATTR) is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "bad name!"}, "Tool name 'bad name!' is invalid"),
        ({"timeout": 0}, "timeout must be positive"),
        ({"dependencies": [42]}, "A dependency must be a capability name"),
    ],
)
def test_mesh_tool_refuses_bad_parameters(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=message):
        mesh_tool(**kwargs)  # type: ignore[arg-type]


def test_selector_shapes() -> None:
    assert Selector.of("add") == Selector("add")
    assert Selector.of({"capability": "add", "version": "^1"}).version == "^1"
    with pytest.raises(ValueError, match="non-empty"):
        Selector("")
