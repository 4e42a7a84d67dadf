"""Testing the way users will: replace a component and a framework bean with fakes, call tools in process."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mesh_framework import McpMeshTool, McpMeshToolProxyFactory, MeshApplication, MeshSettings
from mesh_framework.specs import DependencySpec
from mesh_framework.testing import mesh_client
from starter_app.greeting import GreetingService


class FakeGreetingService:
    greeted = 41

    def greet(self, name: str) -> str:
        return f"fake hello {name}"

    def part_of_day(self) -> str:
        return "night"


class FakeAdd(McpMeshTool):
    """Stands in for another agent's `add`: records calls, answers without any network."""

    capability = function_name = "add"
    endpoint = "in-process"
    agent_id = "fake-adder-00000000"

    def __init__(self) -> None:
        self.calls: list[Mapping[str, Any] | None] = []

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        self.calls.append(arguments)
        assert arguments is not None
        return arguments["a"] + arguments["b"]

    async def list_tools(self) -> list[dict[str, Any]]:
        return []


class FakeProxyFactory(McpMeshToolProxyFactory):
    """The framework bean that fills dependency slots, replaced so every slot holds the fake."""

    def __init__(self, settings: MeshSettings, fake: McpMeshTool) -> None:
        super().__init__(settings)
        self.fake = fake

    def initial_proxy(self, dependency: DependencySpec) -> McpMeshTool | None:
        return self.fake


async def test_override_a_component() -> None:
    app = MeshApplication.load("starter_app", environ={})
    with app.override(GreetingService, FakeGreetingService()):
        async with mesh_client(app) as client:
            result = await client.call_tool("greet", {"name": "Ada"})
    assert result["structuredContent"] == {
        "text": "fake hello Ada",
        "part_of_day": "night",
        "greeted_so_far": 41,
    }
    async with mesh_client(app) as client:  # outside the block the real service is back
        result = await client.call_tool("greet", {"name": "Ada"})
    assert result["structuredContent"]["text"] == "Hello, Ada!"


async def test_override_a_framework_bean_to_test_a_cross_agent_tool_in_process() -> None:
    app = MeshApplication.load("starter_app.calculator", environ={})
    fake = FakeAdd()
    with app.override(McpMeshToolProxyFactory, FakeProxyFactory(app.settings, fake)):
        async with mesh_client(app) as client:
            result = await client.call_tool("sum_of_squares", {"a": 3, "b": 4})
    assert result["structuredContent"] == {"result": 25}
    assert fake.calls == [{"a": 9, "b": 16}]


async def test_override_settings() -> None:
    app = MeshApplication.load("starter_app", environ={})
    agent = app.settings.agent.model_copy(update={"name": "under-test"})
    with app.override("settings", app.settings.model_copy(update={"agent": agent})):
        async with mesh_client(app) as client:
            health = (await client.http.get("/health")).json()
            discover = await client.result("server/discover")
    assert health["agent"] == "under-test"
    assert discover["serverInfo"]["name"] == "under-test"
