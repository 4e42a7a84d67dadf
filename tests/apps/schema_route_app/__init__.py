"""A route whose dependency no provider matches: the audit names it `GET:/api/missing`."""

from __future__ import annotations

from dataclasses import dataclass

from mesh_framework import McpMeshTool, mesh_agent, mesh_route


@dataclass
class Rating:
    stars: int
    text: str


@mesh_agent(name="route-viewer", version="1.0.0")
class RouteViewer:
    pass


@mesh_route(
    "/api/missing",
    methods=["GET"],
    dependencies=[{"capability": "caption", "tags": ["-sloppy"], "expected_type": Rating}],
)
async def missing(text: str, caption: McpMeshTool) -> str:
    return str(await caption(text=text))
