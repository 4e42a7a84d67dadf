"""`@mesh_llm(tools=[f])` local functions: analyzed once at load as `@mesh_tool`s are (a parameter typed
as a bean of the agent is injected, hidden from the schema the model sees, as it is from MCP's), turned
into tool callbacks when the agent is built. A local tool that takes a call-scoped bean gets its own instance
for each call the model makes, closed when that call ends, as a `@mesh_tool`'s call does."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic.errors import PydanticSchemaGenerationError

from ..callbacks.definition import ToolCallback
from ..callbacks.local import FunctionToolCallback
from ..decorators import TOOL_ATTR
from ..di.call_scope import CallScopes
from ..errors import WiringError
from ..specs import ToolSpec
from ..tools.builder import ToolPlan, build_wrappers, plan_tool
from ..tools.signature import SignatureError
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .config import LlmToolConfig

__all__ = ["local_callbacks", "plan_local_tools"]

_UNKNOWN_TYPE = re.compile(r"schema for (.+?)\. Set")


def plan_local_tools(
    config: LlmToolConfig,
    *,
    can_inject: Callable[[Any], bool],
    bean_for: Callable[[Any], str],
    planned: Sequence[ToolPlan] = (),
) -> tuple[LlmToolConfig, list[str]]:
    """`config` with each local function of `tools=[...]` replaced by its plan, and the problems found
    (each naming the function); `can_inject`/`bean_for` are the agent's bean catalog's. A function among
    the agent's own tools (`planned`, the app's tool plans) takes its plan, without its default timeout:
    its signature is analyzed once."""
    items: list[Any] = []
    problems: list[str] = []
    tools = {id(p.spec.function): p for p in planned if p.owner is None}
    for item in config.callbacks:
        if isinstance(item, ToolCallback | ToolPlan) or not callable(item):
            items.append(item)
            continue
        spec = getattr(item, TOOL_ATTR, None) or ToolSpec(function=item)
        tool = tools.get(id(item))
        if tool is not None and tool.spec.function is item and tool.key == _key(item):
            items.append(dataclasses.replace(tool, timeout=spec.timeout))
            continue
        where = f"local tool '{spec.name or item.__name__}' (tools=[...])"
        try:
            items.append(
                plan_tool(
                    _key(item),
                    spec,
                    default_timeout=None,
                    is_method=False,
                    can_inject=can_inject,
                    bean_for=bean_for,
                )
            )
        except SignatureError as exc:
            problems.append(f"{where}: {exc}")
        except WiringError as exc:
            problems.extend(f"{where}: {p}" for p in exc.problems)
        except PydanticSchemaGenerationError as exc:  # a parameter type that is neither a bean nor data
            found = _UNKNOWN_TYPE.search(str(exc))
            problems.append(
                f"{where}: a parameter typed {found.group(1) if found else 'so'} is neither data the model "
                "can send (a pydantic type) nor a bean of this agent; make it a @component or change the type"
            )
    return dataclasses.replace(config, callbacks=tuple(items)), problems


def _key(function: Callable[..., Any]) -> str:
    return f"{function.__module__}.{function.__qualname__}"


def local_callbacks(
    items: Iterable[Any], provide: Callable[[str], Any] | None, scopes: CallScopes | None = None
) -> list[ToolCallback]:
    """The callbacks of `tools=[...]`: a planned function gets its beans through `provide` (a bean's
    provider name -> the bean), its call-scoped ones from a call scope `scopes` opens per call; a function
    given unplanned (an agent built by hand) is wrapped as is."""
    callbacks: list[ToolCallback] = []
    for item in items:
        if isinstance(item, ToolCallback):
            callbacks.append(item)
        elif isinstance(item, ToolPlan):
            if item.beans and provide is None:
                raise WiringError([f"local tool '{item.name}' takes beans, and no container provides them"])
            registry = build_wrappers(
                [item],
                MeshToolWrapperRegistry(),
                provide or _no_bean,
                initial_proxy=lambda _d: None,
                scopes=scopes,
            )
            wrapper = registry.get(item.name)
            assert wrapper is not None
            callbacks.append(FunctionToolCallback.of_wrapper(wrapper))
        else:
            callbacks.append(FunctionToolCallback.of(item))
    return callbacks


def _no_bean(name: str) -> Any:
    raise WiringError([f"no bean '{name}' to inject"])
