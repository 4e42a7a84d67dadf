"""Every decorator takes its name (or URI, prefix, capability, model...) as a keyword too, as FastMCP and
Spring AI users write it: `@mesh_prompt(name="review")` records what `@mesh_prompt("review")` does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from pydantic import BaseModel

from mesh_framework import (
    completer,
    component,
    config_properties,
    health_indicator,
    mcp_command,
    mesh_agent,
    mesh_llm,
    mesh_llm_provider,
    mesh_prompt,
    mesh_resource,
    mesh_tool,
    status_section,
)
from mesh_framework.argument_completion import COMPLETER_ATTR
from mesh_framework.command_tools.command_marks import COMMAND_ATTR
from mesh_framework.decorators import AGENT_ATTR, COMPONENT_ATTR, CONFIG_ATTR, LLM_ATTR, TOOL_ATTR
from mesh_framework.health.indicator import INDICATOR_ATTR
from mesh_framework.prompts.decorator import PROMPT_ATTR
from mesh_framework.resources.decorator import RESOURCE_ATTR
from mesh_framework.status.status_marks import STATUS_ATTR


def recorded(decorator: Callable[[Any], Any], attr: str, target: Any = None) -> Any:
    """What `decorator` recorded on a fresh copy of `target` (a function by default)."""
    if target is None:

        def target(value: str = "") -> str:
            return value

    marked = decorator(target)
    return getattr(marked, attr)


class Model(BaseModel):
    value: int = 1


def fresh_class() -> type:
    return type("Fresh", (), {})


CASES: list[tuple[str, Callable[[], Any], Callable[[], Any], Callable[[Any], Any]]] = [
    # (what, positional, keyword, the part of the record that names it)
    (
        "mesh_prompt",
        lambda: recorded(mesh_prompt("review"), PROMPT_ATTR),
        lambda: recorded(mesh_prompt(name="review"), PROMPT_ATTR),
        lambda spec: spec.name,
    ),
    (
        "health_indicator",
        lambda: recorded(health_indicator("pool"), INDICATOR_ATTR),
        lambda: recorded(health_indicator(name="pool"), INDICATOR_ATTR),
        lambda name: name,
    ),
    (
        "mesh_tool",
        lambda: recorded(mesh_tool("add"), TOOL_ATTR),
        lambda: recorded(mesh_tool(capability="add", name="plus"), TOOL_ATTR),
        lambda spec: spec.capability,
    ),
    (
        "mesh_agent",
        lambda: recorded(mesh_agent("demo"), AGENT_ATTR, fresh_class()),
        lambda: recorded(mesh_agent(name="demo"), AGENT_ATTR, fresh_class()),
        lambda spec: spec.params["agent.name"],
    ),
    (
        "component",
        lambda: recorded(component(name="clock"), COMPONENT_ATTR, fresh_class()),
        lambda: recorded(component(name="clock", qualifier="system"), COMPONENT_ATTR, fresh_class()),
        lambda spec: spec.name,
    ),
    (
        "mesh_llm",
        lambda: recorded(mesh_llm("openai/gpt-4o-mini"), LLM_ATTR),
        lambda: recorded(mesh_llm(provider="openai/gpt-4o-mini"), LLM_ATTR),
        lambda spec: spec.provider,
    ),
    (
        "config_properties",
        lambda: recorded(config_properties("greeting"), CONFIG_ATTR, type("M1", (Model,), {})),
        lambda: recorded(config_properties(prefix="greeting"), CONFIG_ATTR, type("M2", (Model,), {})),
        lambda spec: spec.prefix,
    ),
    (
        "mesh_resource",
        lambda: recorded(mesh_resource("config://app"), RESOURCE_ATTR),
        lambda: recorded(mesh_resource(uri="config://app", name="app"), RESOURCE_ATTR),
        lambda spec: spec.uri,
    ),
    (
        "mcp_command",
        lambda: recorded(mcp_command(name="stress_start"), COMMAND_ATTR),
        lambda: recorded(mcp_command(name="stress_start", capability="ops"), COMMAND_ATTR),
        lambda mark: mark.name,
    ),
    (
        "completer",
        lambda: recorded(completer("language", prompt="review"), COMPLETER_ATTR),
        lambda: recorded(completer(argument="language", prompt="review"), COMPLETER_ATTR),
        lambda spec: (spec.argument, spec.prompt),
    ),
    (
        "status_section",
        lambda: recorded(status_section("cluster"), STATUS_ATTR),
        lambda: recorded(status_section(name="cluster", refresh=5), STATUS_ATTR),
        lambda spec: spec.name,
    ),
    (
        "mesh_llm_provider",
        lambda: recorded(mesh_llm_provider("openai/gpt-4o-mini", name="chat"), TOOL_ATTR),
        lambda: recorded(mesh_llm_provider(model="openai/gpt-4o-mini", name="chat"), TOOL_ATTR),
        lambda spec: spec.name,
    ),
]


@pytest.mark.parametrize(
    ("positional", "keyword", "named"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_decorator_takes_its_name_as_a_keyword(
    positional: Callable[[], Any], keyword: Callable[[], Any], named: Callable[[Any], Any]
) -> None:
    assert named(keyword()) == named(positional())


def test_the_bare_forms_still_work() -> None:
    @mesh_prompt
    def review(code: str) -> str:
        return code

    @health_indicator
    def disk() -> dict[str, int]:
        return {}

    assert getattr(review, PROMPT_ATTR).name is None
    assert getattr(disk, INDICATOR_ATTR) == "disk"
    with pytest.raises(ValueError, match="Prompt name 'not valid' is invalid"):
        mesh_prompt(name="not valid")
    with pytest.raises(TypeError, match="non-empty name"):
        health_indicator(name=" ")
