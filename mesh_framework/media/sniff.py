"""The MIME type that a file's first bytes prove, for the common image types and PDF: what an upload's
declared type is checked against."""

from __future__ import annotations

__all__ = ["SNIFFED_TYPES", "sniff"]

_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
    (b"BM", "image/bmp"),
)
# Types whose bytes `sniff` recognises: a file declared as one of these must carry its signature.
SNIFFED_TYPES = frozenset(
    {"image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf", "image/bmp"}
)


def sniff(data: bytes) -> str | None:
    """The type `data` starts like, or None when it is none of the known ones."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    for signature, mime_type in _SIGNATURES:
        if data.startswith(signature):
            return mime_type
    return None
