"""Media parameters: a tool argument that is a media URI, read from the store only when the tool asks.

Usage::

    @mesh_tool()
    async def describe(question: str, image: MediaParam("image/*") = None) -> str:
        media = await image.read()  # bytes and MIME type, from the agent's media store
        ...

The schema is MCP Mesh's: `{"anyOf": [{"type": "string"}, {"type": "null"}], "x-media-type": "image/*",
"description": "(accepts media URI: image/*)"}`.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, GetCoreSchemaHandler
from pydantic_core import PydanticCustomError, core_schema

from .active import current_media
from .errors import MediaError
from .media import Media
from .store import MediaStore, matches_type

__all__ = ["MediaParam", "MediaRef", "media_schema"]

_SCHEMES = ("file://", "s3://")


class MediaRef(str):
    """A media URI (`file://...`, `s3://...`) given as a tool argument; `await ref.read()` fetches it."""

    __slots__ = ("media_type",)
    media_type: str

    def __new__(cls, uri: str, media_type: str = "*/*") -> MediaRef:
        ref = super().__new__(cls, uri)
        ref.media_type = media_type
        return ref

    @property
    def uri(self) -> str:
        return str(self)

    async def read(self, store: MediaStore | None = None) -> Media:
        """The media's bytes and MIME type from `store` (default: the agent's); MediaError when it is of
        another type than the parameter accepts, MediaNotFound when it is not there."""
        media = await (store or current_media().store).fetch(self.uri)
        if not matches_type(media.mime_type, self.media_type):
            raise MediaError(f"Media {self.uri!r} is {media.mime_type}, but {self.media_type} is expected")
        return media

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(_validate, core_schema.str_schema())


def _validate(value: str) -> MediaRef:
    if not value.startswith(_SCHEMES):
        raise PydanticCustomError(
            "media_uri", "expected a media URI (file://... or s3://...), got '{value}'", {"value": value[:80]}
        )
    return MediaRef(value)


def media_schema(media_type: str) -> dict[str, Any]:
    """What a media parameter adds to its property schema (MCP Mesh's keys)."""
    return {"x-media-type": media_type, "description": f"(accepts media URI: {media_type})"}


class _Typed:
    """Sets the accepted type on the validated `MediaRef` (one marker per `MediaParam(...)`)."""

    def __init__(self, media_type: str) -> None:
        self.media_type = media_type

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(self._typed, handler(source))

    def _typed(self, value: Any) -> Any:
        return MediaRef(value, self.media_type) if isinstance(value, MediaRef) else value


def MediaParam(media_type: str = "*/*") -> Any:
    """The type of a media parameter accepting `media_type` (`image/*`, `application/pdf`, `*/*`)."""
    return Annotated[
        MediaRef | None,
        _Typed(media_type),
        Field(
            json_schema_extra={"x-media-type": media_type}, description=f"(accepts media URI: {media_type})"
        ),
    ]
