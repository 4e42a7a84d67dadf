"""`MeshToolWrapperRegistry`: every tool wrapper of the agent, by tool name and by `module.qualname`."""

from __future__ import annotations

from collections.abc import Iterator

from ..injectables import McpMeshTool
from .wrapper import MeshToolWrapper

__all__ = ["ROUTE_KEY_PREFIX", "MeshToolWrapperRegistry", "dependency_key"]

ROUTE_KEY_PREFIX = "route:"  # the keys of web routes' wrappers (routes/planning.py, mesh/dispatcher.py)


def dependency_key(key: str, index: int) -> str:
    """The composite key of dependency slot `index` of the tool `key` (`module.qualname`)."""
    return f"{key}:dep_{index}"


class MeshToolWrapperRegistry:
    """Holds the wrappers; `update_dependency("module.qualname:dep_N", proxy)` swaps one slot in place."""

    def __init__(self) -> None:
        self._by_name: dict[str, MeshToolWrapper] = {}
        self._by_key: dict[str, MeshToolWrapper] = {}

    def add(self, wrapper: MeshToolWrapper) -> None:
        if wrapper.name in self._by_name:
            other = self._by_name[wrapper.name]
            raise ValueError(f"tool name '{wrapper.name}' is used by both {other.key} and {wrapper.key}")
        self._by_name[wrapper.name] = wrapper
        self._by_key[wrapper.key] = wrapper

    def remove(self, name: str) -> MeshToolWrapper:
        """Stop serving the tool `name` (gateway tools come and go with their servers)."""
        wrapper = self._by_name.pop(name)
        self._by_key.pop(wrapper.key, None)
        return wrapper

    def get(self, name: str) -> MeshToolWrapper | None:
        """The wrapper serving the MCP tool `name`, or None."""
        return self._by_name.get(name)

    def by_key(self, key: str) -> MeshToolWrapper:
        """The wrapper of the function `module.qualname`."""
        try:
            return self._by_key[key]
        except KeyError:
            raise KeyError(f"no tool is registered for '{key}'") from None

    def update_dependency(self, composite_key: str, proxy: McpMeshTool | None) -> None:
        """Swap a dependency slot addressed as `module.qualname:dep_N`."""
        key, sep, dep = composite_key.rpartition(":")
        if not sep or not dep.startswith("dep_") or not dep[4:].isdigit():
            raise ValueError(f"'{composite_key}' is not a dependency key of the form 'module.qualname:dep_N'")
        wrapper, index = self.by_key(key), int(dep[4:])
        if (
            0 <= index < len(wrapper.spec.dependencies)
        ):  # an expected_type checks the results (schemas/typed.py), loaded with a first resolution
            from ..schemas.typed import typed_dependency

            proxy = typed_dependency(proxy, wrapper.spec.dependencies[index].selector)
        wrapper.update_dependency(index, proxy)

    def names(self) -> list[str]:
        return list(self._by_name)

    def __iter__(self) -> Iterator[MeshToolWrapper]:
        return iter(self._by_name.values())

    def __len__(self) -> int:
        return len(self._by_name)
