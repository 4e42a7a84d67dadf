#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture agent ``mesh-media-chart``, on a shared media store (MCP_MESH_MEDIA_STORAGE_PATH):

- ``mesh_chart(name)`` stores a small PNG with ``mesh.MediaResult`` and returns its ``resource_link``;
- ``mesh_inspect(image)`` takes a ``mesh.MediaParam("image/*")`` URI, read with ``mesh.download_media``;
- ``mesh_render_inspect(size)`` calls the ``render`` capability (ours) through the mesh and reads the media
  that its ``resource_link`` names.
"""

import struct
import zlib

import mesh
from fastmcp import FastMCP

app = FastMCP("Mesh Media Chart")


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + bytes(range(8)) for _ in range(8))
    header = struct.pack(">IIBBBBB", 8, 8, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


@app.tool()
@mesh.tool(capability="mesh_chart", description="A chart stored in the media store.")
async def mesh_chart(name: str = "mesh-chart.png"):
    return await mesh.MediaResult(data=_png(), filename=name, mime_type="image/png", name="Mesh chart")


@app.tool()
@mesh.tool(capability="mesh_inspect", description="Size and type of an image.")
async def mesh_inspect(image: mesh.MediaParam("image/*") = None) -> dict:
    data, mime_type = await mesh.download_media(image)
    return {"size": len(data), "mime": mime_type}


@app.tool()
@mesh.tool(capability="mesh_render_inspect", dependencies=["render"], description="Reads render's media.")
async def mesh_render_inspect(size: int, render: mesh.McpMeshTool = None) -> dict:
    result = await render(size=size, filename="for-mesh.png")
    items = result if isinstance(result, list) else [result]
    for item in items:
        if isinstance(item, dict) and item.get("type") == "resource_link":
            link = item.get("resource") or item
            data, mime_type = await mesh.download_media(link["uri"])
            return {"uri": link["uri"], "size": len(data), "mime": mime_type, "link_size": link.get("size")}
    return {"unexpected": repr(result)[:500]}


@mesh.agent(name="mesh-media-chart", version="1.0.0", http_port=0, auto_run=True)
class MeshMediaChart:
    """Media on the shared store."""
