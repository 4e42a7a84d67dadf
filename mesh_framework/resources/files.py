"""Static files served as resources (`resources.files`): each file, or every file below a folder.

A file's URI is `resources.uri_prefix` plus its path relative to the listed entry's parent folder
(`docs/guide.md` listed as `docs` is `file:///docs/guide.md`). The MIME type comes from the extension;
text types are served as text, the rest as base64 blobs. Files are read when a client reads them.
"""

from __future__ import annotations

import codecs
import contextlib
import functools
from pathlib import Path
from typing import Any

from .._frozen import frozen
from .contents import blob_contents, is_text_type, text_contents

__all__ = ["SNIFF_BYTES", "StaticFile", "find_files", "guessed_type", "sniffed_type"]

SNIFF_BYTES = 4096  # what is read of a file whose name says nothing of its type


@functools.cache
def _types() -> Any:
    """The `mimetypes` module with the types it lacks on some systems (imported when files are listed)."""
    import mimetypes

    for mime_type, extension in (
        ("text/markdown", ".md"),
        ("application/yaml", ".yaml"),
        ("application/yaml", ".yml"),
        ("application/toml", ".toml"),
        ("text/x-python", ".py"),
    ):
        mimetypes.add_type(mime_type, extension)
    return mimetypes


def guessed_type(name: str) -> str | None:
    """The MIME type a file's name says (its extension), or None."""
    guessed, _ = _types().guess_type(name)
    return str(guessed) if guessed else None


def sniffed_type(head: bytes) -> str:
    """The MIME type of a file whose name says none, from its first bytes (`SNIFF_BYTES` of them are read):
    text/plain when they read as UTF-8 text, else application/octet-stream."""
    head = head[:SNIFF_BYTES]
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head)  # a character cut at the end is no error
    except UnicodeDecodeError:
        return "application/octet-stream"
    return "text/plain" if b"\x00" not in head else "application/octet-stream"


@frozen
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
        found.append(
            StaticFile(uri_prefix + relative.as_posix(), path, guessed_type(path.name) or _sniff(path))
        )
    return found


def _sniff(path: Path) -> str:
    """`sniffed_type` of the file's first bytes; application/octet-stream when it cannot be read."""
    try:
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError:
        return "application/octet-stream"
    return sniffed_type(head)
