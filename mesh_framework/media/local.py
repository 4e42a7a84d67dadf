"""The local-folder media store (the default, nothing to install): `file://` URIs, MCP Mesh's layout."""

from __future__ import annotations

import asyncio
import errno
import mimetypes
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import MediaError, MediaNotFound, MediaStoreUnavailable
from .store import MediaStore, check_filename

if TYPE_CHECKING:
    from .media import Media

__all__ = ["LocalMediaStore"]


class LocalMediaStore(MediaStore):
    """Media in `<path>/<prefix><name>`; a file is written under a temporary name and renamed, so a
    reader never sees part of one. `fetch` reads only inside `path` (path traversal refused) and takes
    the MIME type from the bytes where they prove one (an SVG named `.png` is SVG), else from the
    extension, as MCP Mesh does."""

    scheme = "file"

    def __init__(self, path: str | Path, prefix: str = "media/") -> None:
        self.base = Path(path).absolute()
        self.prefix = prefix
        self.folder = self.base / prefix

    def describe(self) -> str:
        return f"local folder {self.folder}"

    async def upload(self, data: bytes, filename: str, mime_type: str) -> str:
        destination = self.folder / check_filename(filename)
        self._inside(destination, destination.as_uri())
        try:
            await asyncio.to_thread(self._write, destination, data)
        except OSError as exc:
            raise MediaStoreUnavailable(
                f"Media store {self.describe()} cannot be written ({exc.strerror or exc}); check "
                "media.path (MCP_MESH_MEDIA_STORAGE_PATH) and its permissions"
            ) from exc
        return f"file://{destination}"

    async def fetch(self, uri: str) -> Media:
        from .media import Media  # loaded with the first media read, as is sniffing
        from .sniff import sniff

        path = self._path(uri)
        try:
            data = await asyncio.to_thread(path.read_bytes)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise MediaNotFound(f"Media {uri!r} does not exist in the {self.describe()}") from None
        except OSError as exc:
            if exc.errno in (errno.ENAMETOOLONG, errno.ELOOP):  # what was asked cannot name a file
                raise MediaNotFound(f"Media {uri[:200]!r} does not exist in the {self.describe()}") from None
            raise MediaStoreUnavailable(f"Media {uri!r} cannot be read: {exc.strerror or exc}") from exc
        guessed, _ = mimetypes.guess_type(path.name)
        return Media(data, sniff(data) or guessed or "application/octet-stream", uri)

    async def exists(self, uri: str) -> bool:
        return self._path(uri).is_file()

    def _path(self, uri: str) -> Path:
        self.check_uri(uri)
        if "\0" in uri:
            raise MediaError(f"Media URI {uri[:200]!r} holds a NUL character; no file is named so")
        path = Path(uri.removeprefix("file://"))
        self._inside(path, uri)
        return path

    def _inside(self, path: Path, uri: str) -> None:
        if not path.resolve().is_relative_to(self.base.resolve()):
            raise MediaError(
                f"Media URI {uri!r} is outside this agent's {self.describe()} (path traversal refused); "
                "agents that share media must share media.path"
            )

    @staticmethod
    def _write(destination: Path, data: bytes) -> None:
        destination.parent.mkdir(parents=True, exist_ok=True)
        temporary = destination.with_name(f".{destination.name}.{secrets.token_hex(4)}.part")
        try:
            with open(temporary, "wb") as file:
                file.write(data)
            os.replace(temporary, destination)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
