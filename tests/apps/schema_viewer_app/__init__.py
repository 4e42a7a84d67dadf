"""A consumer of `caption` that states the shape it expects (docs/services.md)."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from mesh_framework import McpMeshTool, Selector, mesh_agent, mesh_route, mesh_tool


class Caption(BaseModel):
    text: str
    confidence: float


@dataclass
class Rating:
    stars: int
    text: str


@mesh_agent(name="viewer", version="1.0.0")
class Viewer:
    pass


@mesh_tool(capability="show", dependencies=[Selector("caption", expected_type=Caption)])
async def show(text: str, caption: McpMeshTool) -> str:
    found = await caption(text=text)  # a Caption: checked against the expected type
    return f"{found.text} ({found.confidence:.1f})"


@mesh_tool(
    capability="show_rating",
    dependencies=[{"capability": "caption", "tags": ["-sloppy"], "expected_type": Rating}],
)
async def show_rating(text: str, caption: McpMeshTool) -> str:
    return str(await caption(text=text))


@mesh_tool(
    capability="show_sloppy",
    dependencies=[Selector("caption", tags=["sloppy"], expected_type=Caption)],
)
async def show_sloppy(text: str, caption: McpMeshTool) -> str:
    found = await caption(text=text)
    return found.text


@mesh_route("/caption", dependencies=[Selector("caption", expected_type=Caption)])
async def caption_page(text: str, caption: McpMeshTool) -> dict[str, object]:
    found = await caption(text=text)
    return {"text": found.text, "confidence": found.confidence}
