from __future__ import annotations

from typing import TYPE_CHECKING

from mesh_framework import McpMeshTool, component, mesh_tool

if TYPE_CHECKING:
    from decimal import Decimal


class Missing:
    pass


class Base:
    pass


@component
class ImplA(Base):
    pass


@component
class ImplB(Base):
    pass


@component
class NeedsMissing:
    def __init__(
        self,
        missing: Missing,
    ) -> None:
        self.missing = missing


@component
class NeedsAmbiguous:
    def __init__(self, base: Base) -> None:
        self.base = base


@component
class CycleA:
    def __init__(self, b: CycleB) -> None:
        self.b = b


@component
class CycleB:
    def __init__(self, a: CycleA) -> None:
        self.a = a


@component
class HiddenHint:
    def __init__(self, amount: Decimal) -> None:
        self.amount = amount


@mesh_tool(dependencies=["x"])
def too_many(a: McpMeshTool, b: McpMeshTool) -> None:
    return None
