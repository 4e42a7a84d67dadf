"""`ToolCallbackProvider`: where a set of tool callbacks comes from, and `ToolsChanged`, its change event."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable

from .._frozen import frozen
from ..errors import MeshError
from .definition import ToolCallback, ToolDefinition

__all__ = ["StaticToolCallbackProvider", "ToolCallbackProvider", "ToolsChanged"]


@frozen
class ToolsChanged:
    """Published when a connection's tools changed: `connection` names it, `tools` is the new list."""

    connection: str
    tools: tuple[ToolDefinition, ...]


class ToolCallbackProvider(ABC):
    """Discovers tools and hands out callbacks; caches what it found until `invalidate()`."""

    @abstractmethod
    async def get_tool_callbacks(self) -> list[ToolCallback]:
        """Every callback this provider offers now (discovering first when the cache is empty)."""

    def invalidate(self) -> None:  # noqa: B027 - providers without a cache need not override
        """Forget what was discovered; the next `get_tool_callbacks()` discovers again."""

    async def find(self, name: str) -> ToolCallback:
        """The callback named `name`; MeshError listing the names offered when there is none."""
        callbacks = await self.get_tool_callbacks()
        for callback in callbacks:
            if callback.definition.name == name:
                return callback
        offered = ", ".join(sorted(c.definition.name for c in callbacks)) or "none"
        raise MeshError(f"no tool named '{name}' (tools offered: {offered})")

    async def aclose(self) -> None:  # noqa: B027 - nothing to release by default
        """Release connections."""


class StaticToolCallbackProvider(ToolCallbackProvider):
    """A fixed list of callbacks (local functions, callbacks built by hand)."""

    def __init__(self, callbacks: Iterable[ToolCallback]) -> None:
        self._callbacks = list(callbacks)
        names = [c.definition.name for c in self._callbacks]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise MeshError(f"tool callbacks share a name: {', '.join(duplicates)}; rename them")

    async def get_tool_callbacks(self) -> list[ToolCallback]:
        return list(self._callbacks)
