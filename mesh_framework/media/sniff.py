"""The MIME type that a file's first bytes prove, for the common image types, PDF and SVG: what an upload's
declared type is checked against, and the type media read from a store is given.

SVG is recognised apart from the raster images: it is XML that a browser runs scripts in, so it is
`image/svg+xml`, never one of the `image/*` types an upload route takes (`store.matches_type`).
"""

from __future__ import annotations

import codecs
import re

__all__ = ["SNIFFED_TYPES", "SVG", "sniff"]

SVG = "image/svg+xml"

_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
)
# Types whose bytes `sniff` recognises: a file declared as one of these must carry its signature.
SNIFFED_TYPES = frozenset(
    {"image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf", "image/bmp", SVG}
)

# What may come before an XML document's root element: the declaration, comments, processing
# instructions and a doctype (with an internal subset), and white space between them.
_PROLOG = re.compile(
    r"(?:\s|<\?.*?\?>|<!--.*?-->|<!doctype(?:[^\[>]|\[.*?\])*>)*",
    re.IGNORECASE | re.DOTALL,
)
_SVG_ROOT = re.compile(r"<(?:[a-z_][\w.-]*:)?svg[\s/>]", re.IGNORECASE)
_UNICODE_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def sniff(data: bytes) -> str | None:
    """The type `data` starts like, or None when it is none of the known ones."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    for signature, mime_type in _SIGNATURES:
        if data.startswith(signature):
            return mime_type
    # BMP's two letters alone are too weak (a text may start "BM"): its header's reserved bytes are 0.
    if data.startswith(b"BM") and len(data) >= 14 and data[6:10] == b"\0\0\0\0":
        return "image/bmp"
    if _is_svg(data):
        return SVG
    return None


def _is_svg(data: bytes) -> bool:
    """Whether `data` is an XML document whose root element is `svg` (any prefix, any case, any of the
    encodings a browser reads by its byte-order mark), however long its prolog."""
    text = _text(data)
    if text is None:
        return False
    start = _PROLOG.match(text)
    return _SVG_ROOT.match(text, start.end() if start else 0) is not None


def _text(data: bytes) -> str | None:
    for bom, encoding in _UNICODE_BOMS:
        if data.startswith(bom):
            return data[len(bom) :].decode(encoding, "replace")
    if data[:1] not in (b"<", b" ", b"\t", b"\r", b"\n"):
        return None  # not markup: no need to decode a large binary file
    return data.decode("latin-1")  # ASCII markup reads the same in UTF-8 and latin-1
