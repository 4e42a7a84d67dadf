"""Static files served as resources (`resources.files`): each file, or every file below a folder.

A file's URI is `resources.uri_prefix` plus its path relative to the listed entry's parent folder
(`docs/guide.md` listed as `docs` is `file:///docs/guide.md`). The MIME type comes from the extension;
text types are served as text, the rest as base64 blobs. Files are read when a client reads them.
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .contents import blob_contents, is_text_type, text_contents

__all__ = ["StaticFile", "find_files"]


@functools.cache
def _types() -> Any:
    """The `mimetypes` module with the types it lacks on some systems (imported when files are listed)."""
    import mimetypes

    for mime_type, extension in (
        ("text/markdown", ".md"),
        ("application/yaml", ".yaml"),
        ("application/yaml", ".yml"),
        ("application/toml", ".toml"),
    ):
        mimetypes.add_type(mime_type, extension)
    return mimetypes


@dataclass(frozen=True, slots=True)
class StaticFile:
    uri: str
    path: Path
    mime_type: str

    def descriptor(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"uri": self.uri, "name": self.path.name, "mimeType": self.mime_type}
        with contextlib.suppress(OSError):
            wire["size"] = self.path.stat().st_size
        return wire

    def read(self) -> list[dict[str, Any]]:
        data = self.path.read_bytes()
        if is_text_type(self.mime_type):
            try:
                return [text_contents(self.uri, data.decode("utf-8"), self.mime_type)]
            except UnicodeDecodeError:
                pass
        return [blob_contents(self.uri, data, self.mime_type)]


def find_files(entry: Path, uri_prefix: str) -> list[StaticFile]:
    """The files of one `resources.files` entry (a file, or a folder walked recursively, hidden files
    skipped), sorted by path."""
    base = entry.parent
    paths = [entry] if entry.is_file() else sorted(p for p in entry.rglob("*") if p.is_file())
    found = []
    for path in paths:
        relative = path.relative_to(base)
        if any(part.startswith(".") for part in relative.parts):
            continue
        guessed, _ = _types().guess_type(path.name)
        found.append(StaticFile(uri_prefix + relative.as_posix(), path, guessed or _sniff(path)))
    return found


def _sniff(path: Path) -> str:
    """text/plain for a file that reads as UTF-8 text, else application/octet-stream."""
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
        head.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return "application/octet-stream"
    return "text/plain" if b"\x00" not in head else "application/octet-stream"
