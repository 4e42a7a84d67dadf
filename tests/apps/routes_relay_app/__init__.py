"""Web routes that call another agent's `headers_seen` (tests/apps/propagation_app/back.py): as JSON and
as Server-Sent Events, so what the provider received can be compared with what the route was sent."""

from __future__ import annotations

import json
from typing import Any

from mesh_framework import McpMeshTool, Stream, mesh_agent, mesh_route


@mesh_agent(name="route-relay", version="1.0.0")
class RouteRelay:
    pass


@mesh_route("/api/relay/{who}", dependencies=["headers_seen"])
async def relay(who: str, headers_seen: McpMeshTool) -> dict[str, Any]:
    """What the provider received, called from inside this request."""
    return dict(await headers_seen())


@mesh_route("/api/relay-stream", dependencies=["headers_seen"])
async def relay_stream(headers_seen: McpMeshTool) -> Stream[str]:
    """The same, called while the answer streams."""
    yield "calling"
    yield json.dumps(await headers_seen())
