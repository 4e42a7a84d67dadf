"""Provider of `caption` whose result is a Caption (text, confidence); and one that publishes no output
schema and answers without `confidence` (only a call-time check can catch it)."""

from __future__ import annotations

from pydantic import BaseModel

from mesh_framework import TextContent, ToolResult, mesh_agent, mesh_tool


class Caption(BaseModel):
    text: str
    confidence: float


@mesh_agent(name="caption-provider", version="1.0.0")
class CaptionProvider:
    pass


@mesh_tool(capability="caption", tags=["good"])
async def caption(text: str) -> Caption:
    return Caption(text=f"a picture of {text}", confidence=0.9)


@mesh_tool(capability="caption", tags=["sloppy"])
async def sloppy_caption(text: str) -> ToolResult:
    return ToolResult([TextContent(text)], structured={"text": text})  # no confidence
