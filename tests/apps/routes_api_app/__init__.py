"""An agent with web routes only (it registers as MCP Mesh's `api` agents do): a JSON route and a stream,
both depending on `upper`, which another agent provides."""

from __future__ import annotations

from mesh_framework import McpMeshTool, Stream, mesh_agent, mesh_route


@mesh_agent(name="web-gateway", version="1.0.0")
class WebGateway:
    pass


@mesh_route("/api/shout", dependencies=["upper"])
async def shout(text: str, up: McpMeshTool) -> dict[str, str]:
    return {"text": await up(text=text), "by": up.agent_id or ""}


@mesh_route("/api/shout-stream", dependencies=[{"capability": "upper", "tags": ["-deprecated"]}])
async def shout_stream(text: str, up: McpMeshTool) -> Stream[str]:
    for word in text.split():
        yield await up(text=word)


@mesh_route("/api/add", dependencies=["add"])
async def add(a: int, b: int, adder: McpMeshTool) -> dict[str, object]:
    return {"sum": await adder(a=a, b=b), "by": adder.agent_id or ""}
