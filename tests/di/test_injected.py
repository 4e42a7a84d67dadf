"""tools/injected.py: the one loop that fills a call's injected parameters, for tools and routes alike:
each kind from what the call has at hand, and the first parameter that cannot be filled named with why."""

from __future__ import annotations

from typing import Any

import pytest

from mesh_framework import McpMeshTool, MeshLlmAgent, ToolContext, mesh_tool
from mesh_framework.decorators import TOOL_ATTR
from mesh_framework.security.caller import serving_caller
from mesh_framework.security.verifiers import AccessToken
from mesh_framework.tools.builder import build_wrappers, plan_tool
from mesh_framework.tools.injected import Unfilled, fill_injected
from mesh_framework.tools.wrapper import MeshToolWrapper
from mesh_framework.tools.wrapper_registry import MeshToolWrapperRegistry

pytestmark = pytest.mark.timeout(30)


class Settings:
    """A bean type the tool below takes."""


class Agent(MeshLlmAgent):
    """An LLM agent whose provider is `missing` (None: it has one)."""

    def __init__(self, missing: str | None) -> None:
        self.missing = missing

    async def __call__(self, message: str | list[dict[str, Any]], **options: Any) -> Any:
        return "answer"

    def unavailable(self) -> str | None:
        return self.missing


class Weather(McpMeshTool):
    """A dependency's proxy that is never called here: the loop only puts it in place."""

    capability = function_name = "weather"
    endpoint = "http://127.0.0.1:1"
    agent_id = "weather-00000000"

    async def call_tool(self, name: str, arguments: Any = None) -> Any:
        raise AssertionError("not called")

    async def list_tools(self) -> list[dict[str, Any]]:
        return []


@mesh_tool(dependencies=["weather", "maps"])
async def everything(
    city: str,
    weather: McpMeshTool,
    maps: McpMeshTool | None,
    ctx: ToolContext,
    caller: AccessToken | None,
    settings: Settings,
) -> str:
    return city


@mesh_tool()
async def chat(question: str, llm: MeshLlmAgent) -> str:
    return question


def wrapper_of(function: Any) -> MeshToolWrapper:
    plan = plan_tool(
        f"tests.{function.__name__}",
        getattr(function, TOOL_ATTR),
        default_timeout=5.0,
        is_method=False,
        can_inject=lambda annotation: annotation is Settings,
        bean_for=lambda _annotation: "settings",
    )
    registry = build_wrappers(
        [plan], MeshToolWrapperRegistry(), provide=lambda _name: Settings(), initial_proxy=lambda _d: None
    )
    (wrapper,) = registry
    return wrapper


def test_each_kind_is_filled_from_what_the_call_has() -> None:
    wrapper = wrapper_of(everything)
    weather = Weather()
    wrapper.update_dependency(0, weather)
    beans = {"settings": Settings()}
    context = ToolContext("everything")
    kwargs: dict[str, Any] = {"city": "Oslo"}
    assert fill_injected(wrapper.signature.injected, wrapper, kwargs, context, beans) is None
    assert kwargs == {
        "city": "Oslo",
        "weather": weather,
        "maps": None,  # optional and unresolved: None, the call goes on
        "ctx": context,
        "caller": None,  # the context's: no verified token
        "settings": beans["settings"],
    }


def test_without_a_context_the_caller_is_the_request_served_and_a_fresh_context_is_made() -> None:
    wrapper = wrapper_of(everything)
    wrapper.update_dependency(0, Weather())
    token = AccessToken("client-1", subject="ada")
    kwargs: dict[str, Any] = {}
    with serving_caller(token):
        assert fill_injected(wrapper.signature.injected, wrapper, kwargs, None, {"settings": 1}) is None
    assert kwargs["caller"] is token
    assert isinstance(kwargs["ctx"], ToolContext) and kwargs["ctx"].tool_name == "everything"


def test_a_named_value_wins_over_a_bean_of_that_name() -> None:
    """A route's `Request` parameter is a "bean" by kind, filled with the request itself."""
    wrapper = wrapper_of(everything)
    wrapper.update_dependency(0, Weather())
    kwargs: dict[str, Any] = {}
    named = {"settings": "the request"}
    assert (
        fill_injected(wrapper.signature.injected, wrapper, kwargs, None, {"settings": 1}, named=named) is None
    )
    assert kwargs["settings"] == "the request"


def test_a_required_dependency_with_no_provider_stops_the_loop_naming_its_slot() -> None:
    wrapper = wrapper_of(everything)
    kwargs: dict[str, Any] = {}
    unfilled = fill_injected(wrapper.signature.injected, wrapper, kwargs, None, {"settings": 1})
    assert isinstance(unfilled, Unfilled)
    assert (unfilled.param.name, unfilled.slots, unfilled.llm) == ("weather", (0,), None)
    assert "settings" not in kwargs  # nothing after it was filled


def test_an_llm_parameter_without_an_agent_or_its_provider_is_unfilled() -> None:
    wrapper = wrapper_of(chat)
    injected = wrapper.signature.injected
    unfilled = fill_injected(injected, wrapper, {}, None, {})
    assert unfilled is not None and (unfilled.param.name, unfilled.llm) == ("llm", "")
    wrapper.llm_agent = Agent(missing="claude")
    kwargs: dict[str, Any] = {}
    # a tool's call goes on (the agent fails inside it, saying so); a route refuses before it runs
    assert fill_injected(injected, wrapper, kwargs, None, {}) is None and kwargs["llm"] is wrapper.llm_agent
    unfilled = fill_injected(injected, wrapper, {}, None, {}, llm_ready=True)
    assert unfilled is not None and unfilled.llm == "claude"
    wrapper.llm_agent = Agent(missing=None)
    assert fill_injected(injected, wrapper, {}, None, {}, llm_ready=True) is None


async def test_a_tool_answers_an_unfilled_parameter_as_an_error_result() -> None:
    wrapper = wrapper_of(chat)
    result = await wrapper.call({"question": "hi"})
    assert result["isError"] is True
    assert result["content"][0]["text"] == "Tool 'chat' needs an LLM agent, but no LLM provider is resolved"
