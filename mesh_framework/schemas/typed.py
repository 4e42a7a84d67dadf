"""A dependency with an `expected_type`: the provider's result is checked against it at call time.

The registry already matched the provider's *published* output schema; this checks what it actually
answered. A result that does not fit raises ToolExecutionError naming the field and the provider (the
consumer's tool answers its caller with that message, never a traceback); one that fits is returned as the
expected type (a model or dataclass instance, a TypedDict's dict).
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Mapping
from typing import Any

from pydantic import TypeAdapter, ValidationError

from ..errors import ToolExecutionError
from ..injectables import McpMeshTool
from .canonical import type_name

__all__ = ["TypedMcpMeshTool", "typed_dependency"]


@functools.lru_cache(maxsize=256)
def _adapter(expected: Any) -> TypeAdapter[Any]:
    return TypeAdapter(expected)


def _problems(exc: ValidationError, limit: int = 3) -> str:
    parts = []
    for error in exc.errors()[:limit]:
        where = ".".join(str(p) for p in error["loc"]) or "(the result)"
        parts.append(f"field '{where}': {error['msg']}")
    more = exc.error_count() - limit
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


class TypedMcpMeshTool(McpMeshTool):
    """Wraps a dependency's proxy; the dependency's own tool is checked, other calls pass through."""

    def __init__(self, inner: McpMeshTool, expected: Any) -> None:
        self.inner = inner
        self.expected = expected
        self.capability = inner.capability
        self.function_name = inner.function_name
        self.endpoint = inner.endpoint
        self.agent_id = inner.agent_id
        self.job_submitter = inner.job_submitter
        self._validate = _adapter(expected).validate_python

    def check(self, value: Any) -> Any:
        """`value` as the expected type; ToolExecutionError naming the fields that do not fit."""
        try:
            return self._validate(value)
        except ValidationError as exc:
            raise ToolExecutionError(
                f"the result of '{self.capability}' does not match the expected type "
                f"{type_name(self.expected)}: {_problems(exc)}",
                tool=self.function_name,
                agent=self.agent_id,
            ) from None

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> Any:
        value = await self.inner.call_tool(name, arguments)
        return self.check(value) if name == self.function_name else value

    async def list_tools(self) -> list[dict[str, Any]]:
        return await self.inner.list_tools()

    async def call_result(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, meta: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        return await self.inner.call_result(name, arguments, meta=meta)

    def stream_tool(self, name: str, arguments: Mapping[str, Any] | None = None) -> AsyncIterator[str]:
        return self.inner.stream_tool(name, arguments)

    async def _feature_request(self, method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return await self.inner._feature_request(method, params)

    def __getattr__(self, name: str) -> Any:  # what a proxy offers beyond McpMeshTool (alternates, ...)
        return getattr(self.inner, name)


def typed_dependency(proxy: McpMeshTool | None, selector: Any) -> McpMeshTool | None:
    """`proxy` checked against the selector's `expected_type` when it is a type (a JSON Schema dict is
    matched by the registry only); otherwise `proxy` itself."""
    expected = getattr(selector, "expected_type", None)
    if proxy is None or expected is None or isinstance(expected, Mapping):
        return proxy
    return TypedMcpMeshTool(proxy, expected)
