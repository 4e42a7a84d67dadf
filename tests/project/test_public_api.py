"""The public surface is explicit and pinned; decorators only record metadata."""

from __future__ import annotations

import ast
import json
import socket
import subprocess
import sys
from pathlib import Path

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
    "mcp_command", "status_section", "Stream", "mesh_route",
    "mesh_service", "mesh_selector", "selector", "ServiceUnavailable",
    "Health", "HealthIndicator", "HealthStatus", "health_indicator",
    "A2aClient", "A2aError", "A2aEvent", "A2aPeer", "A2aTask", "mesh_a2a",
    "MediaParam", "MediaRef", "MediaResult", "MediaStore", "media_result", "save_upload",
    "bean", "configuration", "imports", "profile", "conditional_on_property", "conditional_on_missing_bean",
    "conditional",
    "conditional_on_class",
}  # fmt: skip


def test_public_surface_is_pinned() -> None:
    assert set(mesh_framework.__all__) == PUBLIC
    for name in PUBLIC:
        assert hasattr(mesh_framework, name)


def test_type_checkers_see_every_public_name() -> None:
    """mypy and IDEs read the `TYPE_CHECKING` imports; at run time `__getattr__` loads the same names."""
    tree = ast.parse(Path(mesh_framework.__file__).read_text())
    checked = {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
        for stmt in node.body
        if isinstance(stmt, ast.ImportFrom)
        for alias in stmt.names
    }
    assert checked == PUBLIC
    assert set(dir(mesh_framework)) >= PUBLIC
    with pytest.raises(AttributeError, match="no attribute 'NotAName'"):
        _ = mesh_framework.NotAName  # type: ignore[attr-defined]


def _run_python(code: str) -> dict[str, object]:
    """Run `code` in a fresh interpreter; it prints one JSON object as its last line."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


# `frozen`: objects frozen since the interpreter started (3.12 starts with some already)
GC_STATE = "{'enabled': gc.isenabled(), 'frozen': gc.get_freeze_count() - found}"


@pytest.mark.parametrize("enabled", [True, False])
def test_import_leaves_garbage_collection_as_found(enabled: bool) -> None:
    state = _run_python(
        f"import gc, json\n"
        "found = gc.get_freeze_count()\n"
        f"{'gc.enable()' if enabled else 'gc.disable()'}\n"
        "import mesh_framework\n"
        "from mesh_framework import *\n"  # every public name loaded
        f"print(json.dumps({GC_STATE}))"
    )
    assert state == {"enabled": enabled, "frozen": 0}


def test_failed_import_leaves_garbage_collection_as_found() -> None:
    # A module of the framework that cannot be imported (None in sys.modules makes its import fail).
    state = _run_python(
        "import gc, json, sys\n"
        "found = gc.get_freeze_count()\n"
        "sys.modules['mesh_framework.app'] = None\n"
        "try:\n"
        "    import mesh_framework\n"
        "    from mesh_framework import MeshApplication\n"
        "except ImportError:\n"
        "    failed = True\n"
        "else:\n"
        "    failed = False\n"
        f"print(json.dumps({{'failed': failed, **{GC_STATE}}}))"
    )
    assert state == {"failed": True, "enabled": True, "frozen": 0}


def test_import_loads_only_what_is_used() -> None:
    modules = _run_python(
        "import json, sys\n"
        "import mesh_framework\n"
        "bare = sorted(m for m in sys.modules if m.startswith('mesh_framework'))\n"
        "from mesh_framework import mesh_tool, Selector\n"
        "print(json.dumps({'bare': bare, 'decorators': sorted(sys.modules)}))"
    )
    assert modules["bare"] == ["mesh_framework", "mesh_framework._lazy"]  # the PEP 562 helper alone
    loaded = set(modules["decorators"])  # type: ignore[arg-type]
    assert "mesh_framework.decorators" in loaded
    assert not loaded & {"mesh_framework.app", "starlette", "uvicorn", "httpx2", "dependency_injector"}
    # the decorators name no feature: marking a tool loads no A2A, prompt or resource module
    assert not {
        m
        for m in loaded
        if m.startswith(("mesh_framework.a2a", "mesh_framework.prompts", "mesh_framework.resources"))
    }


def test_mesh_command_loads_no_agent_machinery() -> None:
    modules = _run_python(
        "import json, sys\n"
        "from mesh_framework.cli.entry import build_parser\n"
        "build_parser()\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    agent_machinery = {"mesh_framework.app", "starlette", "uvicorn", "httpx2", "dependency_injector", "mcp"}
    assert not set(modules) & agent_machinery  # type: ignore[arg-type]


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
