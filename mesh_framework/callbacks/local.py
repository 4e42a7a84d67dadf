"""`FunctionToolCallback`: a local function (or `@mesh_tool` function) as a tool callback."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from ..tools.context import ToolContext
from ..tools.signature import analyze_signature
from ..tools.wrapper import MeshToolWrapper
from .definition import ToolCallback, ToolDefinition

__all__ = ["FunctionToolCallback"]


class FunctionToolCallback(ToolCallback):
    """Calls a Python function (sync or async) through the same wrapper that serves `@mesh_tool`s, so
    arguments are validated against the schema and failures become `isError` results.

    Usage::

        callback = FunctionToolCallback.of(add)          # a plain function or a @mesh_tool
        await callback.call({"a": 1, "b": 2})            # 3
    """

    def __init__(self, wrapper: MeshToolWrapper) -> None:
        self.wrapper = wrapper
        descriptor = wrapper.descriptor
        self.definition = ToolDefinition(
            name=wrapper.name,
            description=descriptor.get("description", ""),
            input_schema=descriptor["inputSchema"],
            output_schema=descriptor.get("outputSchema"),
        )

    @classmethod
    def of(
        cls, function: Callable[..., Any], *, name: str | None = None, description: str | None = None
    ) -> FunctionToolCallback:
        """A callback for `function`; a `@mesh_tool`'s own name, description and timeout are used."""
        from ..decorators import TOOL_ATTR
        from ..specs import ToolSpec

        spec = getattr(function, TOOL_ATTR, None) or ToolSpec(function=function)
        tool_name = name or spec.name or function.__name__
        signature = analyze_signature(
            function,
            skip_self=False,
            model_name=f"{tool_name}_arguments",
            dependency_count=len(spec.dependencies),
            bean_types=lambda _annotation: False,
            input_schema=spec.input_schema,
        )
        wrapper = MeshToolWrapper(
            key=f"{function.__module__}.{function.__qualname__}",
            name=tool_name,
            spec=spec,
            signature=signature,
            target=function,
            description=description
            if description is not None
            else spec.description or inspect.getdoc(function) or "",
            timeout=spec.timeout,
        )
        return cls(wrapper)

    @classmethod
    def of_wrapper(cls, wrapper: MeshToolWrapper) -> FunctionToolCallback:
        """A callback for a tool this agent serves (its dependencies and beans already injected)."""
        return cls(wrapper)

    async def call_result(
        self, arguments: Mapping[str, Any] | None = None, context: ToolContext | None = None
    ) -> dict[str, Any]:
        return await self.wrapper.call(arguments, context)
