"""Server-sent events: the one encoder, the one decoder and the disconnect watch of every event stream.

`encode` writes one event so that no payload can start a field or an event of its own: a reader splits
lines on `\\r\\n`, `\\n` and a lone `\\r` alike, so a payload holding any of them is written as one `data:`
line per piece, and the reader gets the payload back as one event, its line endings read as `\\n` (a chunk
`"a\\revent: error"` is one event whose data is `"a\\nevent: error"`, never a forged `event: error`).

`EventDecoder` reads a stream as the HTML standard's `EventSource` does (its "event stream interpretation"):
bytes (UTF-8, a leading BOM dropped) or text, in chunks cut anywhere; lines ended by CRLF, LF or CR; a line
starting with `:` is a comment; `field: value` with one leading space of the value dropped, a field with no
colon has an empty value; `data` lines joined by `\\n`; an event is dispatched on a blank line and only when
it has data; `id` holding NUL is ignored; `retry` counts only when it is all ASCII digits; an event the
stream ends in the middle of is dropped.

`wait_for_disconnect` is the ASGI side: it returns once the client of a streamed answer has gone away.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from typing import Any

from ._frozen import frozen

__all__ = [
    "KEEP_ALIVE",
    "MEDIA_TYPE",
    "Event",
    "EventDecoder",
    "aiter_events",
    "decode",
    "encode",
    "wait_for_disconnect",
]

MEDIA_TYPE = "text/event-stream"

# Every line ending a reader splits on: CRLF first, so that it counts once.
_LINE_ENDING = re.compile(r"\r\n|\r|\n")
_BYTES_LINE_ENDING = re.compile(rb"\r\n|\r|\n")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _utf8(text: str) -> bytes:
    """`text` in UTF-8; a lone surrogate (which UTF-8 cannot hold) is written as U+FFFD."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text).encode()


def _lines(text: str | bytes) -> list[bytes]:
    if isinstance(text, str):
        text = _utf8(text)
    if b"\n" not in text and b"\r" not in text:  # the usual case: one line (compact JSON, a short chunk)
        return [text]
    return _BYTES_LINE_ENDING.split(text)


def _field(name: str, value: str | None) -> str:
    """`value` checked to hold no line ending (it is one field's one line)."""
    if value is not None and ("\n" in value or "\r" in value):
        raise ValueError(f"an event's {name} cannot hold a line ending: {value!r}")
    return value or ""


def encode(
    data: str | bytes | None = None,
    *,
    event: str | None = None,
    id: str | None = None,  # the field's name on the wire
    retry: int | None = None,
    comment: str | None = None,
) -> bytes:
    """One whole event, ended by its blank line: `: comment` lines, `event:`, `id:`, `retry:`, then one
    `data:` line per line of `data` (split on CRLF, LF and CR). `encode(b'{"a":1}', event="message")` is
    `b'event: message\\ndata: {"a":1}\\n\\n'`; `encode(comment="ping")` is the keep-alive `b": ping\\n\\n"`.

    Text is written in UTF-8, a lone surrogate (UTF-8 has none) as U+FFFD. Without `data` a reader
    dispatches nothing (a comment, an `id` or a `retry` alone). ValueError for an `event` or `id` holding
    a line ending, an `id` holding NUL (a reader ignores it) and a negative `retry`: those are the
    program's own values, never a caller's input."""
    if data is not None and id is None and retry is None and comment is None:  # the frames streams send
        line = _utf8(data) if isinstance(data, str) else data
        if b"\n" not in line and b"\r" not in line:
            if event is None:
                return b"data: " + line + b"\n\n"
            if "\n" not in event and "\r" not in event:
                return b"event: " + _utf8(event) + b"\ndata: " + line + b"\n\n"
    out: list[bytes] = []
    if comment is not None:
        out += [b":" + (b" " + line if line else b"") + b"\n" for line in _lines(comment)]
    if event is not None:
        out.append(b"event: " + _utf8(_field("event name", event)) + b"\n")
    if id is not None:
        if "\0" in id:
            raise ValueError(f"an event's id cannot hold NUL (a reader ignores it): {id!r}")
        out.append(b"id: " + _utf8(_field("id", id)) + b"\n")
    if retry is not None:
        if isinstance(retry, bool) or not isinstance(retry, int) or retry < 0:
            raise ValueError(f"an event's retry is a whole number of milliseconds >= 0, not {retry!r}")
        out.append(b"retry: %d\n" % retry)
    if data is not None:
        out += [b"data: " + line + b"\n" for line in _lines(data)]
    out.append(b"\n")
    return b"".join(out)


KEEP_ALIVE = encode(comment="ping")  # a comment: keeps an idle connection (and its proxies) open


@frozen
class Event:
    """One dispatched event: its `data`, its type (`message` unless named), the stream's last event id
    when it came, and the reconnection time (ms) the stream last set, if any."""

    data: str
    event: str = "message"
    id: str = ""
    retry: int | None = None


class EventDecoder:
    """An event stream read incrementally: `feed` each chunk (bytes or text, cut anywhere), get the events
    it completed. Feed one kind: bytes are decoded as UTF-8 (an invalid sequence reads as U+FFFD)."""

    __slots__ = (
        "_after_cr",
        "_bytes",
        "_data",
        "_event",
        "_id",
        "_partial",
        "_started",
        "last_event_id",
        "retry",
    )

    def __init__(self) -> None:
        self._bytes = codecs.getincrementaldecoder("utf-8")("replace")
        self._started = False  # a first character was read (a BOM is dropped only there)
        self._after_cr = False  # the last line ended with CR: an LF starting the next chunk belongs to it
        self._partial: list[str] = []  # the current line, not ended yet
        self._data: list[str] = []
        self._event = ""
        self._id = ""  # the last event ID buffer: it outlives the event that set it
        self.last_event_id = ""
        self.retry: int | None = None

    def feed(self, chunk: bytes | str) -> list[Event]:
        """The events `chunk` completes, in order."""
        text = self._bytes.decode(chunk) if isinstance(chunk, bytes) else chunk
        if not text:
            return []
        if not self._started:
            self._started = True
            if text[0] == "\ufeff":
                text = text[1:]
        if self._after_cr:
            if not text:
                return []
            self._after_cr = False
            if text[0] == "\n":
                text = text[1:]
        if "\n" not in text and "\r" not in text:
            if text:
                self._partial.append(text)
            return []
        if self._partial:
            self._partial.append(text)
            text = "".join(self._partial)
        lines = _LINE_ENDING.split(text)
        rest = lines.pop()
        self._partial = [rest] if rest else []
        self._after_cr = text[-1] == "\r"
        events: list[Event] = []
        for line in lines:
            self._line(line, events)
        return events

    def _line(self, line: str, events: list[Event]) -> None:
        if not line:
            self._dispatch(events)
            return
        if line[0] == ":":
            return  # a comment
        name, colon, value = line.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self.retry = int(value)
        # any other field is ignored

    def _dispatch(self, events: list[Event]) -> None:
        self.last_event_id = self._id
        data, self._data = self._data, []
        event, self._event = self._event, ""
        if data:
            events.append(Event("\n".join(data), event or "message", self._id, self.retry))


def decode(stream: bytes | str) -> list[Event]:
    """The events of a whole stream (an event it ends in the middle of is dropped, as a reader does)."""
    return EventDecoder().feed(stream)


async def aiter_events(chunks: AsyncIterable[bytes] | AsyncIterable[str]) -> AsyncIterator[Event]:
    """Each event of a stream read in `chunks` (e.g. `response.aiter_bytes()`), as soon as it is whole."""
    decoder = EventDecoder()
    async for chunk in chunks:
        for event in decoder.feed(chunk):
            yield event


async def wait_for_disconnect(receive: Callable[[], Awaitable[dict[str, Any]]]) -> None:
    """Returns once the client has gone away. For a streamed ASGI answer whose request body is read:
    whatever `receive` gives after that is the disconnect (anything else is skipped)."""
    while (await receive())["type"] != "http.disconnect":
        pass
