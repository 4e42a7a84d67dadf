#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture agent ``mesh-stream-reader``: reads the ``chat`` capability with ``proxy.stream()``.

``read_chat(prompt)`` returns the chunks it received, one list item per chunk; ``relay_chat(prompt)``
re-yields them as its own stream.
"""

import mesh
from fastmcp import FastMCP
from mesh.types import McpMeshTool

app = FastMCP("Mesh Stream Reader")


@app.tool()
@mesh.tool(capability="stream_reader", dependencies=["chat"], description="The chunks of chat's stream.")
async def read_chat(prompt: str, chat: McpMeshTool | None = None) -> list[str]:
    """Every chunk ``chat.stream()`` yields, in order."""
    if chat is None:
        return ["chat unavailable"]
    return [chunk async for chunk in chat.stream(prompt=prompt)]


@app.tool()
@mesh.tool(capability="stream_relay", dependencies=["chat"], description="chat's stream, re-yielded.")
async def relay_chat(prompt: str, chat: McpMeshTool | None = None) -> mesh.Stream[str]:
    """``chat``'s chunks as this tool's own stream."""
    if chat is None:
        yield "chat unavailable"
        return
    async for chunk in chat.stream(prompt=prompt):
        yield chunk


@mesh.agent(name="mesh-stream-reader", version="1.0.0", http_port=0, auto_run=True)
class MeshStreamReader:
    """Consumer of the streaming ``chat`` capability."""
