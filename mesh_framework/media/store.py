"""The media store: bytes kept once, passed through the mesh as URIs in MCP Mesh's scheme.

`file://<path>/<prefix><name>` (a local folder) and `s3://<bucket>/<prefix><name>` (an S3-compatible
store), so media that an MCP Mesh agent stores is read by ours and the other way round when both use the
same store. A user component subclassing `MediaStore` replaces the framework's.
"""

from __future__ import annotations

import fnmatch
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

from .errors import MediaError

if TYPE_CHECKING:  # media read back, and sniffing, load with a first fetch or upload
    from .media import Media

__all__ = ["MAX_FILENAME_BYTES", "MediaStore", "check_filename", "matches_type"]

MAX_FILENAME_BYTES = 200  # below the 255 of common file systems, with room for the temporary's suffix


class MediaStore(ABC):
    """Where media is kept. `upload` returns the URI; `fetch` reads one back (`MediaNotFound`, or
    `MediaError` for a URI this store cannot reach); `exists` says whether it is there."""

    scheme: str

    @abstractmethod
    async def upload(self, data: bytes, filename: str, mime_type: str) -> str: ...

    @abstractmethod
    async def fetch(self, uri: str) -> Media: ...

    @abstractmethod
    async def exists(self, uri: str) -> bool: ...

    @abstractmethod
    def describe(self) -> str:
        """Where the store keeps media, for messages (`local folder /tmp/mcp-mesh-media/media/`)."""

    def check_uri(self, uri: str) -> None:
        """MediaError unless `uri` is of this store's scheme."""
        if not uri.startswith(f"{self.scheme}://"):
            scheme = uri.split("://", 1)[0] if "://" in uri else ""
            kind = f"uses {scheme}://" if scheme else "is not a media URI"
            raise MediaError(
                f"Media URI {uri!r} {kind}, but this agent's media store is the {self.describe()} "
                f"(media.storage); both agents must use the same store (file:// or s3://)"
            )


def check_filename(filename: str) -> str:
    """`filename` if it names a file inside the prefix; MediaError for a path (traversal refused)."""
    if not filename or filename in (".", "..") or "/" in filename or "\\" in filename or "\0" in filename:
        raise MediaError(
            f"Invalid media filename {filename[:80]!r} (path traversal): "
            "give a plain file name such as 'chart.png'"
        )
    if len(filename.encode("utf-8", "surrogatepass")) > MAX_FILENAME_BYTES:
        raise MediaError(
            f"Invalid media filename {filename[:40]!r}...: longer than {MAX_FILENAME_BYTES} bytes; "
            "give a shorter name"
        )
    return filename


def matches_type(mime_type: str, accepted: str) -> bool:
    """Whether `mime_type` fits `accepted`: patterns, comma-separated (`image/*,application/pdf`).
    `image/svg+xml` fits only a pattern that names it: neither `image/*` nor `*/*` takes SVG."""
    from .sniff import SVG

    mime_type = mime_type.split(";", 1)[0].strip().lower()
    patterns = [p.strip().lower() for p in accepted.split(",") if p.strip()]
    if mime_type == SVG:  # SVG carries scripts: a wildcard never stands for it, only a pattern naming it
        return mime_type in patterns
    return any(fnmatch.fnmatchcase(mime_type, p) for p in patterns)
