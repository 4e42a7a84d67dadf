"""The LLM as an auto-configuration: an app with a `@mesh_llm` tool or route, or one serving a model
(`@mesh_llm_provider`, or a component asking for the provider service), gets its LLM agents planned
while it loads and built with the agent (llm/beans.py), with the vendor SDK clients their models use as
beans (an app's own `openai.AsyncOpenAI` or `anthropic.AsyncAnthropic` wins), and the provider service
only for one serving a model (llm/provider_beans.py); any other loads no LLM module.
A tool that takes a `MeshLlmAgent` without `@mesh_llm` is a problem of every app, reported while it loads."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Iterator
from typing import Any

from ..decorators import LLM_ATTR
from ..di.conditions import ConditionContext, conditional
from ..di.configuration import bean, configuration, imports
from ..di.usage import asks_for
from ..di.wiring import describe_location
from ..extension import LoadPlan, ScannedApp

__all__ = ["PROVIDER_ATTR", "LlmAutoConfiguration", "LlmParameters", "serves_models", "uses_llm"]

# Set by `@mesh_llm_provider` on the tool it makes (llm/provider.py).
PROVIDER_ATTR = "__mesh_llm_provider__"
PROVIDER_SERVICE = "mesh_framework.llm.provider.LlmProviderService"


def _marked(scan: Any) -> Iterator[str]:
    """What carries `@mesh_llm` or `@mesh_llm_provider`: tools, then functions and component methods of
    the scanned modules (`@mesh_route`s)."""
    for tool in scan.tools:
        function = tool.spec.function
        if getattr(function, LLM_ATTR, None) is not None:
            yield f"tool {tool.key} has @mesh_llm"
        if getattr(function, PROVIDER_ATTR, None) is not None:
            yield f"tool {tool.key} is an LLM provider"
    for name in scan.modules:
        module = sys.modules.get(name)
        for value in list(vars(module).values()) if module is not None else []:
            if inspect.isfunction(value) and getattr(value, LLM_ATTR, None) is not None:
                yield f"{name}.{value.__qualname__} has @mesh_llm"
    for spec in scan.components:
        for attribute, member in vars(spec.cls).items():
            if callable(member) and getattr(member, LLM_ATTR, None) is not None:
                yield f"{spec.cls.__qualname__}.{attribute} has @mesh_llm"


def uses_llm(context: ConditionContext) -> tuple[bool, str]:
    """A tool or route has `@mesh_llm`, a tool is an LLM provider, or the app asks for the provider
    service by type."""
    scan = context.scan
    if scan is None:
        return False, "no app scanned"
    found = next(_marked(scan), None) or asks_for(scan, (PROVIDER_SERVICE,))
    if found is not None:
        return True, found
    return False, "no @mesh_llm tool or route, no LLM provider"


def serves_models(context: ConditionContext) -> tuple[bool, str]:
    """A tool is an LLM provider, or the app asks for the provider service by type. Either needs
    llm/provider.py, loaded by then: an app that has not loaded it does neither (nothing else to look at)."""
    scan = context.scan
    if scan is not None and sys.modules.get("mesh_framework.llm.provider") is not None:
        for tool in scan.tools:
            if getattr(tool.spec.function, PROVIDER_ATTR, None) is not None:
                return True, f"tool {tool.key} is an LLM provider"
        asked = asks_for(scan, (PROVIDER_SERVICE,))
        if asked is not None:
            return True, asked
    return False, "no LLM provider tool, nothing asks for the provider service"


class LlmParameters(LoadPlan):
    """Every tool that takes a `MeshLlmAgent` has `@mesh_llm` (which says which model it gets)."""

    def __init__(self, app: ScannedApp) -> None:
        self.problems = [
            f"{describe_location(plan.spec.function)}: tool '{plan.name}' takes a MeshLlmAgent but has no "
            "@mesh_llm(...); add it to choose a provider"
            for plan in app.tool_plans
            if any(p.kind == "llm" for p in plan.signature.injected)
            and getattr(plan.spec.function, LLM_ATTR, None) is None
        ]


@configuration
@conditional(serves_models, "an LLM provider tool, or the app asks for the provider service")
@imports("mesh_framework.llm.provider_beans:LlmProviderBeans")
class LlmProviderUsed:
    """Gates the provider service (llm/provider_beans.py) on the app serving a model."""


@configuration
@conditional(uses_llm, "a @mesh_llm tool or route, or an LLM provider")
@imports("mesh_framework.llm.beans:LlmBeans", LlmProviderUsed)
class LlmUsed:
    """Gates the LLM's beans (llm/beans.py) on the app using an LLM."""


@configuration
@imports(LlmUsed)
class LlmAutoConfiguration:
    @bean
    def llm_parameters(self, app: ScannedApp) -> LlmParameters:
        return LlmParameters(app)
