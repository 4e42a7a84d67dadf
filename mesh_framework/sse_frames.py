"""Server-sent events written so that no payload can start a field or an event of its own.

An event stream reader splits lines on `\\r\\n`, `\\n` and a lone `\\r` alike (the HTML standard's event
stream parsing), so a payload holding any of them is written as one `data:` line per piece: the reader gets
the payload back as one event, its line endings read as `\\n`. A chunk `"a\\revent: error"` is one event
whose data is `"a\\nevent: error"`, never a forged `event: error`.
"""

from __future__ import annotations

import re

__all__ = ["data_lines", "event_frame"]

# Every line ending an event stream reader splits on: CRLF first, so that it counts once.
_LINE_ENDING = re.compile(r"\r\n|\r|\n")


def data_lines(payload: str) -> str:
    """`payload` as `data:` lines, one per line of it: `data: a\\ndata: b\\n` for `"a\\rb"`."""
    return "".join(f"data: {line}\n" for line in _LINE_ENDING.split(payload))


def event_frame(payload: str, event: str | None = None) -> bytes:
    """One whole event (ended by its blank line): `event: NAME` when named, then `payload`'s data lines.

    ValueError for an event name holding a line ending (names are the program's own, never input)."""
    if event is None:
        return (data_lines(payload) + "\n").encode()
    if _LINE_ENDING.search(event):
        raise ValueError(f"an event name cannot hold a line ending: {event!r}")
    return (f"event: {event}\n" + data_lines(payload) + "\n").encode()
