"""An agent with media: media parameters read from the store, media results, the store injected by type,
LLM tools that pass media to OpenAI and Anthropic models (and a tool returning an image to the model),
and an upload route."""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from mesh_framework import McpMeshTool, MeshLlmAgent, mesh_agent, mesh_llm, mesh_route, mesh_tool
from mesh_framework.content import Content
from mesh_framework.media import (
    MediaError,
    MediaNotFound,
    MediaParam,
    MediaStore,
    current_media,
    media_link,
    media_refs,
    media_response,
    media_result,
    save_upload,
)
from tests.media_files import png


@mesh_agent(name="media-app", version="1.0.0")
class MediaApp:
    pass


@mesh_tool()
async def measure(image: MediaParam("image/*")) -> dict[str, Any]:
    """Size and type of an image."""
    media = await image.read()
    return {"size": media.size, "mime": media.mime_type}


@mesh_tool()
async def render(size: int, filename: str = "chart.png") -> Content:
    """Render a chart of about `size` bytes."""
    return await media_result(png(size), filename, "image/png", name="Chart", description="q3")


@mesh_tool()
async def sound(seconds: int) -> Content:
    """A short (silent) WAV clip."""
    return await media_result(b"RIFF" + bytes(36 + 8 * seconds), "clip.wav", "audio/wav")


@mesh_tool()
async def report() -> Content:
    """A one-page PDF report."""
    return await media_result(b"%PDF-1.4\n%%EOF\n", "report.pdf", "application/pdf")


@mesh_tool()
def vanished() -> Content:
    """A link to a chart that is no longer in the store."""
    folder = current_media().store.describe().removeprefix("local folder ")
    return media_link(f"file://{folder}/vanished.png", "Vanished", "image/png", size=10)


@mesh_tool(dependencies=["render"])
async def forward(size: int, render: McpMeshTool | None = None) -> dict[str, Any]:
    """Asks the mesh's render for a chart and reads the media it answers."""
    assert render is not None
    [ref] = media_refs(await render(size=size, filename="forwarded.png"))
    media = await ref.read()
    return {"uri": ref.uri, "size": media.size, "mime": media.mime_type}


@mesh_tool()
def where(store: MediaStore) -> str:
    """Where this agent keeps media."""
    return store.describe()


@mesh_tool()
@mesh_llm(provider="openai/gpt-4o-mini", tools=[render, measure, vanished])
async def describe(question: str, llm: MeshLlmAgent, image: MediaParam("image/*") = None) -> str:
    """Answer a question about an image."""
    return str(await llm(question, media=[image]))  # without an image: [None], skipped


@mesh_tool()
@mesh_llm(provider="anthropic/claude-sonnet-4-6", tools=[render])
async def describe_claude(question: str, llm: MeshLlmAgent, document: MediaParam("*/*") = None) -> str:
    """Answer a question about an image or a PDF."""
    return str(await llm(question, media=[document] if document else None))


@mesh_tool()
@mesh_llm(provider={"capability": "llm", "tags": ["+fake"]}, tools=[render])
async def describe_mesh(question: str, llm: MeshLlmAgent, image: MediaParam("image/*") = None) -> str:
    """Answer a question about an image with the mesh's LLM provider."""
    return str(await llm(question, media=[image] if image else None))


@mesh_route("/api/upload", methods=["POST"], accepts=["multipart/form-data"])
async def upload(request: Request) -> dict[str, str]:
    return {"uri": await save_upload(request, accept="image/*,application/pdf")}


@mesh_route("/api/replace", methods=["POST"], accepts=["multipart/form-data"])
async def replace(request: Request) -> dict[str, str]:
    """Stores the file under the name sent, replacing what had that name (the route opts in)."""
    return {"uri": await save_upload(request, accept="image/png", overwrite=True)}


@mesh_route("/api/drawing", methods=["POST"], accepts=["multipart/form-data"])
async def drawing(request: Request) -> dict[str, str]:
    """Takes raster images and, named explicitly, SVG."""
    return {"uri": await save_upload(request, accept="image/*,image/svg+xml")}


@mesh_route("/api/form-upload", methods=["POST"], accepts=["multipart/form-data"])
async def form_upload(request: Request) -> dict[str, str]:
    """The form read by the route itself, its file handed over."""
    form = await request.form()
    return {"uri": await save_upload(form.get("file"), accept="image/*,application/pdf")}


@mesh_route("/api/media")
async def show(uri: str, store: MediaStore) -> Response:
    """Media from the store, for a browser."""
    try:
        return media_response(await store.fetch(uri))
    except MediaNotFound:
        raise HTTPException(404, "no such media") from None
    except MediaError as exc:
        raise HTTPException(400, str(exc)) from None
