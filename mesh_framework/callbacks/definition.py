"""`ToolCallback`: one tool, whatever serves it (an MCP server, a mesh agent, a local function).

A callback has a `definition` (what a model or a client is shown) and is called with a dict of arguments
and an optional `ToolContext`. `call` returns the result as a Python value, the way `McpMeshTool` does;
`call_result` returns the MCP `CallToolResult` itself (wire dict), `isError` included.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Coroutine, Mapping
from dataclasses import field, replace
from typing import Any

from .._frozen import frozen
from ..tools.context import ToolContext

__all__ = ["ToolCallback", "ToolDefinition"]


@frozen
class ToolDefinition:
    """What a tool looks like to its caller.

    `name` is the name callers use (possibly prefixed to stay unique); `source_name` is the tool's name at
    its source; `connection` names the source (a catalog server, a mesh agent) or is None for local code.
    """

    name: str
    description: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    connection: str | None = None
    source_name: str | None = None
    output_schema: Mapping[str, Any] | None = None

    @property
    def original_name(self) -> str:
        return self.source_name or self.name

    def renamed(self, name: str) -> ToolDefinition:
        return replace(self, name=name, source_name=self.original_name)

    def to_mcp(self) -> dict[str, Any]:
        """The definition as an MCP `Tool` (what `tools/list` serves)."""
        tool: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "inputSchema": dict(self.input_schema),
        }
        if self.output_schema is not None:
            tool["outputSchema"] = dict(self.output_schema)
        return tool


class ToolCallback(ABC):
    """One callable tool. Subclasses implement `call_result`; `loop` is the event loop the callback's
    connection lives on (None when any loop will do)."""

    definition: ToolDefinition
    loop: asyncio.AbstractEventLoop | None = None

    @property
    def name(self) -> str:
        return self.definition.name

    @abstractmethod
    async def call_result(
        self, arguments: Mapping[str, Any] | None = None, context: ToolContext | None = None
    ) -> dict[str, Any]:
        """The `CallToolResult` as a wire dict. Raises ToolExecutionError when no answer could be had."""

    async def call(
        self, arguments: Mapping[str, Any] | None = None, context: ToolContext | None = None
    ) -> Any:
        """The tool's result as a Python value; raises ToolExecutionError when the tool reports an error."""
        from ..mesh.proxy import unwrap_result  # the mesh's proxies: loaded with the first tool called

        definition = self.definition
        result = await self.call_result(arguments, context)
        return unwrap_result(
            result, tool=definition.name, agent=definition.connection or "", definition=definition
        )

    def call_sync(
        self,
        arguments: Mapping[str, Any] | None = None,
        context: ToolContext | None = None,
        *,
        timeout: float | None = None,
    ) -> Any:
        """`call` for code without an event loop (a sync tool runs in a worker thread, a script)."""
        return run_sync(self.call(arguments, context), self.loop, timeout=timeout)

    def __repr__(self) -> str:
        source = f" from {self.definition.connection}" if self.definition.connection else ""
        return f"<{type(self).__name__} {self.definition.name}{source}>"


def run_sync(
    coroutine: Coroutine[Any, Any, Any],
    loop: asyncio.AbstractEventLoop | None,
    *,
    timeout: float | None = None,
) -> Any:
    """Run `coroutine` to completion from synchronous code, on `loop` when it runs in another thread."""
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is not None:
        coroutine.close()
        raise RuntimeError(
            "call_sync() would block the event loop this code runs on; use `await callback.call(...)`"
        )
    if loop is not None and loop.is_running():
        return asyncio.run_coroutine_threadsafe(coroutine, loop).result(timeout)
    return asyncio.run(asyncio.wait_for(coroutine, timeout) if timeout is not None else coroutine)
