"""Tools whose input schemas cover the shapes arguments take: bounded numbers, enums, nested objects,
lists, maps, optional values. The fuzz tests call them with generated arguments, valid and not."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from mesh_framework import mesh_agent, mesh_tool


@mesh_agent(name="fuzz-target")
class FuzzTarget:
    pass


class Point(BaseModel):
    x: float
    y: float
    label: str | None = None


@mesh_tool(capability="scale")
def scale(
    factor: Annotated[int, Field(ge=-1000, le=1000)],
    points: Annotated[list[Point], Field(max_length=50)],
) -> list[Point]:
    """Scale points by an integer factor."""
    return [Point(x=p.x * factor, y=p.y * factor, label=p.label) for p in points]


@mesh_tool(capability="choose")
async def choose(
    mode: Literal["first", "last", "count"], items: list[str], weights: dict[str, int] | None = None
) -> str:
    """Pick from a list by mode."""
    if not items:
        return ""
    if mode == "count":
        return str(len(items) + len(weights or {}))
    return items[0] if mode == "first" else items[-1]


@mesh_tool(capability="flags")
def flags(
    enabled: bool, ratio: Annotated[float, Field(gt=0, lt=1)] = 0.5, note: str = ""
) -> dict[str, object]:
    """Echo flags back."""
    return {"enabled": enabled, "ratio": ratio, "note": note[:100]}
