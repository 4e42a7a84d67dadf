"""Type-checked by tests/services/test_services_typing.py (mypy --strict): a service parameter is an
instance of the declared type, so its methods' arguments and results are checked like any other call."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel

from mesh_framework import McpMeshTool, mesh_service, mesh_tool, selector


class Caption(BaseModel):
    text: str
    confidence: float


@mesh_service(min_available=1)
class MediaService(Protocol):
    @selector("media.caption", tags=["+fast"], required=True)
    async def caption(self, text: str) -> Caption: ...

    @selector("media.thumbnail")
    async def thumbnail(self, text: str, size: int = 64) -> str: ...


@mesh_tool(dependencies=["media.caption"])
async def describe(text: str, cap: McpMeshTool, media: MediaService) -> str:
    caption: Caption = await media.caption(text=text)
    thumb: str = await media.thumbnail(text, size=32)
    return f"{caption.text} ({caption.confidence:.2f}) {thumb}"
