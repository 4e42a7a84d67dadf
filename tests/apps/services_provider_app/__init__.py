"""Providers of the `media.*` capabilities a service interface binds to."""

from __future__ import annotations

from pydantic import BaseModel

from mesh_framework import mesh_agent, mesh_tool


class Caption(BaseModel):
    text: str
    confidence: float


@mesh_agent(name="media-provider", version="1.0.0")
class MediaProvider:
    pass


@mesh_tool(capability="media.caption", tags=["fast"])
async def caption(text: str) -> Caption:
    return Caption(text=f"a picture of {text}", confidence=0.9)


@mesh_tool(capability="media.thumbnail")
async def thumbnail(text: str, size: int = 64) -> str:
    return f"thumb({text},{size})"


@mesh_tool(capability="media.broken_caption")
async def broken_caption(text: str) -> dict[str, object]:
    return {"text": text}  # no confidence: does not match Caption
