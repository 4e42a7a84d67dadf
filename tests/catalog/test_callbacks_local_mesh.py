"""Callbacks over local functions and over the mesh (real proxies to a real agent, slots swapped by the
topology dispatcher), static providers, and application events."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from mesh_framework import McpMeshTool, MeshSettings, ToolExecutionError, mesh_tool
from mesh_framework.callbacks import (
    FunctionToolCallback,
    MeshToolCallback,
    MeshToolCallbackProvider,
    StaticToolCallbackProvider,
    ToolDefinition,
    ToolsChanged,
)
from mesh_framework.events import ApplicationEventPublisher, event_listener
from mesh_framework.mesh.dispatcher import TopologyDispatcher
from mesh_framework.mesh.proxy import Provider
from mesh_framework.mesh.proxy_factory import McpMeshToolProxyFactory
from mesh_framework.mesh.topology import Resolution, Topology, TopologyEvent

from ..agents import run_agent
from ..server.test_wrapper import wrap


@mesh_tool(name="shout", description="Upper-case a text")
def shout(text: str, times: int = 1) -> str:
    return text.upper() * times


async def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


async def test_function_callbacks_validate_and_call() -> None:
    loud = FunctionToolCallback.of(shout)
    assert loud.definition.name == "shout" and loud.definition.description == "Upper-case a text"
    assert loud.definition.input_schema["required"] == ["text"]
    assert await loud.call({"text": "hi", "times": 2}) == "HIHI"
    times = FunctionToolCallback.of(multiply)
    assert (
        times.definition.description == "Multiply two integers." and await times.call({"a": 6, "b": 7}) == 42
    )
    with pytest.raises(ToolExecutionError, match="b: required argument is missing") as caught:
        await times.call({"a": 1})
    assert caught.value.definition is times.definition


def test_call_sync_without_a_loop() -> None:
    assert FunctionToolCallback.of(multiply).call_sync({"a": 2, "b": 3}) == 6


async def test_static_provider_finds_and_refuses_duplicates() -> None:
    tools = StaticToolCallbackProvider([FunctionToolCallback.of(shout), FunctionToolCallback.of(multiply)])
    assert [c.definition.name for c in await tools.get_tool_callbacks()] == ["shout", "multiply"]
    with pytest.raises(Exception, match="no tool named 'divide' \\(tools offered: multiply, shout\\)"):
        await tools.find("divide")
    with pytest.raises(Exception, match="share a name: shout"):
        StaticToolCallbackProvider([FunctionToolCallback.of(shout), FunctionToolCallback.of(shout)])


@mesh_tool(dependencies=["add"])
async def uses_add(a: int, b: int, add: McpMeshTool) -> int:
    return int(await add(a=a, b=b))


async def test_mesh_callbacks_follow_the_topology() -> None:
    """A real provider agent; the consumer's slot is filled by the dispatcher from a registry answer."""
    settings = MeshSettings()
    settings.agent.id = "consumer-00000001"
    publisher = ApplicationEventPublisher()
    changes: list[ToolsChanged] = []
    publisher.subscribe(ToolsChanged, changes.append)
    tools = wrap(uses_add)
    factory = McpMeshToolProxyFactory(settings)
    dispatcher = TopologyDispatcher(tools, factory, publisher)
    mesh_tools = MeshToolCallbackProvider("uses_add", factory=factory, tools=tools, publisher=publisher)
    try:
        assert await mesh_tools.get_tool_callbacks() == []
        with run_agent("starter_app") as agent:
            provider = Provider("starter-00000002", agent.base_url, "add")
            dispatcher.apply(Topology({"tests.uses_add:dep_0": Resolution("add", provider)}))
            await asyncio.wait_for(_until(lambda: changes), 10)
            assert [t.name for t in changes[-1].tools] == ["add"]
            (add,) = await mesh_tools.get_tool_callbacks()
            assert isinstance(add, MeshToolCallback) and add.definition.connection == "starter-00000002"
            assert add.definition.input_schema["required"] == ["a", "b"]
            assert await add.call({"a": 20, "b": 22}) == 42
            with pytest.raises(ToolExecutionError) as caught:
                await add.call({"a": "x", "b": 1})
            assert caught.value.definition is add.definition and caught.value.result is not None
            # llm_tools entries (MCP Mesh's shape) join the set, named uniquely.
            entry = {"name": "add", "capability": "add", "endpoint": agent.base_url, "inputSchema": {}}
            dispatcher.apply(Topology(dispatcher.topology.dependencies, llm_tools={"uses_add": [entry]}))
            await asyncio.wait_for(_until(lambda: len(changes) >= 2), 10)
            names = [c.definition.name for c in await mesh_tools.get_tool_callbacks()]
            assert names == ["add", "alt_1_add"]
            assert await (await mesh_tools.find("alt_1_add")).call({"a": 1, "b": 1}) == 2
        dispatcher.apply(Topology({"tests.uses_add:dep_0": None}, llm_tools=dispatcher.topology.llm_tools))
        await asyncio.wait_for(_until(lambda: len(changes) >= 3), 10)
        assert [c.definition.name for c in await mesh_tools.get_tool_callbacks()] == ["add"]  # llm entry
    finally:
        await mesh_tools.aclose()
        await factory.aclose()


async def _until(predicate: Any) -> None:
    while not predicate():
        await asyncio.sleep(0.05)


class Audit:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    @event_listener
    async def on_tools(self, event: ToolsChanged) -> None:
        self.seen.append(event)

    @event_listener(TopologyEvent)
    def on_topology(self, event: Any) -> None:
        self.seen.append(event)

    @event_listener
    def broken(self, event: ToolsChanged) -> None:
        raise RuntimeError("listener bug")


async def test_event_listeners_by_type(caplog: pytest.LogCaptureFixture) -> None:
    publisher = ApplicationEventPublisher()
    audit = Audit()
    assert publisher.register(audit) == 3
    changed = ToolsChanged("fs", (ToolDefinition("read"),))
    with caplog.at_level(logging.ERROR, logger="mesh_framework.events"):
        await publisher.publish(changed)
    assert audit.seen == [changed]
    assert "event listener Audit.broken failed on ToolsChanged: RuntimeError: listener bug" in caplog.text
    assert "Traceback" not in caplog.text
    publisher.publish_soon(TopologyEvent("dependency_unavailable", "a:dep_0"))
    await publisher.drain()
    assert audit.seen[-1] == TopologyEvent("dependency_unavailable", "a:dep_0")
    await publisher.publish("an unrelated event")
    assert len(audit.seen) == 2


def test_a_listener_without_an_event_type_is_refused() -> None:
    class Vague:
        @event_listener
        def on_something(self, event) -> None:  # type: ignore[no-untyped-def]
            pass

    with pytest.raises(TypeError, match="annotate its first parameter with the event type"):
        ApplicationEventPublisher().register(Vague())
