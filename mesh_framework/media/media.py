"""One piece of media read from a store: its bytes, MIME type and URI."""

from __future__ import annotations

import base64
from pathlib import PurePosixPath

from .._frozen import frozen

__all__ = ["Media", "filename_of"]


@frozen
class Media:
    data: bytes
    mime_type: str
    uri: str

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def filename(self) -> str:
        return filename_of(self.uri)

    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    def data_url(self) -> str:
        """`data:<mime>;base64,...`, as OpenAI's image and file parts take media."""
        return f"data:{self.mime_type};base64,{self.base64()}"


def filename_of(uri: str) -> str:
    """The last path segment of a media URI (`file:///a/b/chart.png` -> `chart.png`)."""
    return PurePosixPath(uri.split("://", 1)[-1]).name or "media"
