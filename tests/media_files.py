"""Real media bytes for tests: PNG images of a chosen size (valid files: signature, IHDR, IDAT of noise,
IEND), a small PDF, and an SVG carrying a script (what a browser would run if it were served as a page)."""

from __future__ import annotations

import os
import struct
import zlib

__all__ = ["PDF", "SVG", "png"]

PDF = (
    b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
    b"2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
)

SVG = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<!-- drawn by hand -->\n'
    b'<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n'
    b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    b"<script>alert(document.domain)</script><rect width='10' height='10'/></svg>\n"
)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(size: int = 100) -> bytes:
    """A valid grey PNG of about `size` bytes (at least 67): rows of random pixels, stored uncompressed."""
    width = max(1, int(max(0, size - 67) ** 0.5))
    rows = b"".join(b"\x00" + os.urandom(width) for _ in range(width))
    header = struct.pack(">IIBBBBB", width, width, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(rows, 0))
        + _chunk(b"IEND", b"")
    )
