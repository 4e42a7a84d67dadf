"""Tools whose parameters JSON gives as strings or arrays (a date, a UUID, an enum, a tuple, a set, a
nested model) beside JSON's own numbers and booleans: arguments are validated as the JSON Schema says."""

from __future__ import annotations

import datetime
import enum
import uuid

from pydantic import BaseModel

from mesh_framework import mesh_agent, mesh_tool


@mesh_agent(name="json-args")
class JsonArgs:
    pass


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Box(BaseModel):
    width: int
    ratio: float


@mesh_tool(capability="describe")
def describe(
    day: datetime.date,
    ident: uuid.UUID,
    colour: Colour,
    pair: tuple[int, int],
    tags: set[str],
    box: Box,
    ratio: float,
    enabled: bool,
    count: int | None = None,
) -> str:
    """Each argument's Python value, as the tool received it."""
    return (
        f"{day.isoformat()} {ident.hex[:8]} {colour.name} {pair} {sorted(tags)} {box.width}x{box.ratio} "
        f"{ratio!r} {enabled} {count}"
    )
