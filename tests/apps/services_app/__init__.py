"""A consumer of a service interface: `MediaService` binds three methods to `media.*` capabilities."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel

from mesh_framework import McpMeshTool, component, mesh_agent, mesh_route, mesh_service, mesh_tool, selector


class Caption(BaseModel):
    text: str
    confidence: float


@mesh_service
class MediaService(Protocol):
    @selector("media.caption", tags=["+fast"], required=True)
    async def caption(self, text: str) -> Caption: ...

    @selector("media.thumbnail")
    async def thumbnail(self, text: str, size: int = 64) -> str: ...

    @selector("media.transcribe")
    async def transcribe(self, text: str) -> str: ...


@mesh_service(min_available=2)
class Thumbnails(Protocol):
    @selector("media.thumbnail")
    async def small(self, text: str, size: int = 16) -> str: ...

    @selector("media.transcribe")
    async def words(self, text: str) -> str: ...


@mesh_service
class Captions(Protocol):
    @selector("media.broken_caption")
    async def caption(self, text: str) -> Caption: ...


@mesh_service
class MatchedMedia(Protocol):
    """Methods that ask the registry to match the providers' output schemas."""

    @selector("media.caption", match_mode="subset")
    async def caption(self, text: str) -> Caption: ...

    @selector("media.thumbnail", match_mode="strict")
    async def thumbnail(self, text: str) -> str: ...


@mesh_service
class Required(Protocol):
    @selector("media.caption", required=True)
    async def caption(self, text: str) -> Caption: ...

    @selector("media.transcribe", required=True)
    async def transcribe(self, text: str) -> str: ...


@mesh_agent(name="media-consumer", version="1.0.0")
class MediaConsumer:
    pass


@mesh_tool(dependencies=["media.caption"])
async def process_media(text: str, cap: McpMeshTool, media: MediaService) -> dict[str, object]:
    """Captions `text` through the service and through a plain dependency."""
    caption = await media.caption(text=text)
    plain = await cap(text=text)
    return {"caption": caption.text, "confidence": caption.confidence, "plain": plain["text"]}


BODY_RUNS: list[str] = []


@mesh_tool()
async def inspect_service(media: MediaService) -> dict[str, object]:
    """What the injected object is, and what its caption method returns."""
    BODY_RUNS.append("inspect_service")
    caption = await media.caption("positional")
    return {
        "is_media_service": MediaService in type(media).__mro__,
        "caption_type": type(caption).__name__,
        "confidence": caption.confidence,
    }


@mesh_tool()
async def transcribe(text: str, media: MediaService) -> str:
    """The optional transcription method; raises while no agent provides it."""
    return await media.transcribe(text=text)


@mesh_tool()
async def thumbnail(text: str, thumbs: Thumbnails) -> str:
    """A service with min_available=2."""
    return await thumbs.small(text)


@mesh_tool()
async def broken_caption(text: str, captions: Captions) -> str:
    """A provider whose answer lacks a field of Caption."""
    return (await captions.caption(text=text)).text


@mesh_tool()
async def matched_caption(text: str, media: MatchedMedia) -> str:
    """A caption from a provider whose output schema fits Caption."""
    return (await media.caption(text=text)).text


@mesh_tool()
async def both_required(text: str, needs: Required) -> str:
    """Two required methods."""
    return await needs.transcribe(text=text)


@component
class Describer:
    prefix = "Described: "

    @mesh_tool()
    async def describe_with(self, text: str, media: MediaService) -> str:
        """A component's method taking the service."""
        return self.prefix + (await media.caption(text=text)).text


@mesh_route("/caption", methods=["GET"])
async def caption_route(text: str, media: MediaService) -> Caption:
    """A web route taking the service."""
    return await media.caption(text=text)
