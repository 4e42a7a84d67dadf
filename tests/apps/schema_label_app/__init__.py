"""Provider of `caption` whose result has another shape: a label, no text."""

from __future__ import annotations

from pydantic import BaseModel

from mesh_framework import mesh_agent, mesh_tool


class Labelled(BaseModel):
    label: str
    confidence: float


@mesh_agent(name="label-provider", version="2.0.0")
class LabelProvider:
    pass


@mesh_tool(capability="caption", version="2.0.0")
async def label(text: str) -> Labelled:
    return Labelled(label=text.upper(), confidence=0.5)
