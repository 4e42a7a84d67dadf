"""The agent of media_bench.py: an upload route into the media store, and two LLM tools asking about an
image, one taking it as a media URI (`MediaParam`), one as base64 inlined in the arguments."""

from __future__ import annotations

from starlette.requests import Request

from mesh_framework import MeshLlmAgent, mesh_agent, mesh_llm, mesh_route, mesh_tool
from mesh_framework.media import MediaParam, save_upload


@mesh_agent(name="media-bench", version="1.0.0")
class MediaBench:
    pass


@mesh_route("/api/upload", methods=["POST"])
async def upload(request: Request) -> dict[str, str]:
    form = await request.form()
    return {"uri": await save_upload(form["file"], accept="image/*")}


@mesh_tool()
@mesh_llm(provider="openai/gpt-4o-mini")
async def by_uri(question: str, llm: MeshLlmAgent, image: MediaParam("image/*") = None) -> str:
    """The image as a media URI: fetched from the store when the model request is built."""
    return str(await llm(question, media=[image]))


@mesh_tool()
@mesh_llm(provider="openai/gpt-4o-mini")
async def inline(question: str, image_base64: str, llm: MeshLlmAgent) -> str:
    """The image inlined as base64 in the arguments, put into the model request as it came."""
    part = {
        "type": "image_url",
        "image_url": {"url": f"data:image/png;base64,{image_base64}", "detail": "high"},
    }
    return str(await llm([{"role": "user", "content": [{"type": "text", "text": question}, part]}]))
