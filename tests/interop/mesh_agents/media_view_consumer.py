#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture agent ``mesh-media-view``: an ``@mesh.service`` view over ``media.*`` capabilities.

``view_caption(text)`` calls the view's required ``caption``; ``view_transcribe(text)`` its optional
``transcribe``, which nobody provides in the tests.
"""

import mesh
from fastmcp import FastMCP

app = FastMCP("Mesh Media View")


@mesh.service
class MediaService:
    @mesh.selector("media.caption", required=True, tags=["+fast"])
    async def caption(self, args: dict) -> dict: ...

    @mesh.selector("media.thumbnail")
    async def thumbnail(self, args: dict) -> dict: ...

    @mesh.selector("media.transcribe")
    async def transcribe(self, args: dict) -> dict: ...


@app.tool()
@mesh.tool(capability="view_caption", description="The view's caption of the text.")
async def view_caption(text: str, media: MediaService = None) -> dict:
    caption = await media.caption({"text": text})
    thumb = await media.thumbnail(text=text, size=8)
    return {"caption": caption, "thumbnail": thumb}


@app.tool()
@mesh.tool(capability="view_transcribe", description="The view's optional transcribe method.")
async def view_transcribe(text: str, media: MediaService = None) -> dict:
    return {"words": await media.transcribe(text=text)}


@mesh.agent(name="mesh-media-view", version="1.0.0", http_port=0, auto_run=True)
class MeshMediaView:
    """Consumer of media.* through a service view."""
