"""`mesh_framework.sse`: what `encode` writes `EventDecoder` reads back, for any text, cut anywhere, with any
line ending; the decoder follows the HTML standard's event stream interpretation (its examples are here);
`wait_for_disconnect` returns on the client's disconnect only."""

from __future__ import annotations

import ast
import asyncio
import itertools
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mesh_framework.sse import (
    KEEP_ALIVE,
    Event,
    EventDecoder,
    aiter_events,
    decode,
    encode,
    wait_for_disconnect,
)

pytestmark = pytest.mark.timeout(120)

PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))

# Text rich in what a stream reader treats specially: line endings, colons, spaces, NUL, a BOM.
TEXT = st.lists(
    st.one_of(
        st.sampled_from(["\r", "\n", "\r\n", ":", " ", "\0", "\ufeff", "data", "event"]), st.characters()
    ),
    max_size=40,
).map("".join)
NAME = st.text(st.characters(blacklist_characters="\r\n"), max_size=12)
ID = st.text(st.characters(blacklist_characters="\r\n\0"), max_size=12)


def read_lines(text: str) -> str:
    """`text` as a reader gives it back: every line ending read as LF (a lone surrogate, which UTF-8
    cannot carry, as U+FFFD)."""
    return re.sub(r"\r\n|\r|\n", "\n", utf8(text))


def utf8(text: str) -> str:
    return re.sub("[\ud800-\udfff]", "\ufffd", text)


def chunks_of(stream: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({0, len(stream), *(c % (len(stream) + 1) for c in cuts)})
    return [stream[a:b] for a, b in itertools.pairwise(points)]


@PROPERTY
@given(data=TEXT, event=st.none() | NAME, id=st.none() | ID, retry=st.none() | st.integers(0, 10**12))
def test_what_is_encoded_is_read_back(
    data: str, event: str | None, id: str | None, retry: int | None
) -> None:
    [read] = decode(encode(data, event=event, id=id, retry=retry))
    assert read == Event(read_lines(data), utf8(event or "message"), utf8(id or ""), retry)


@PROPERTY
@given(payloads=st.lists(TEXT, min_size=1, max_size=5), cuts=st.lists(st.integers(0, 10_000), max_size=12))
def test_a_stream_cut_anywhere_reads_the_same(payloads: list[str], cuts: list[int]) -> None:
    """Cuts inside a UTF-8 sequence, between CR and LF, before a BOM: the events are the same."""
    stream = b"\xef\xbb\xbf" + KEEP_ALIVE + b"".join(encode(p, event="e") + KEEP_ALIVE for p in payloads)
    decoder = EventDecoder()
    events = [e for chunk in chunks_of(stream, cuts) for e in decoder.feed(chunk)]
    assert [e.data for e in events] == [read_lines(p) for p in payloads]
    assert decode(stream) == events
    text_decoder = EventDecoder()  # text chunks read the same as bytes
    text_events = [e for chunk in chunks_of(stream.decode(), cuts) for e in text_decoder.feed(chunk)]  # type: ignore[arg-type]
    assert text_events == events


@PROPERTY
@given(payloads=st.lists(TEXT, min_size=1, max_size=4), ending=st.sampled_from(["\r\n", "\r", "\n"]))
def test_any_line_ending_of_the_stream_reads_the_same(payloads: list[str], ending: str) -> None:
    stream = b"".join(encode(p, id=str(i)) for i, p in enumerate(payloads))
    as_written = decode(stream)
    # the encoder writes LF only: the payloads' own line endings became line breaks between data: lines
    assert decode(stream.replace(b"\n", ending.encode())) == as_written
    assert [e.data for e in as_written] == [read_lines(p) for p in payloads]


# The examples of the HTML standard's "Server-sent events" section (event stream interpretation).


def test_spec_example_messages_and_a_multi_line_one() -> None:
    stream = (
        "data: This is the first message.\n\n"
        "data: This is the second message, it\ndata: has two lines.\n\n"
        "data: This is the third message.\n\n"
    )
    assert [e.data for e in decode(stream)] == [
        "This is the first message.",
        "This is the second message, it\nhas two lines.",
        "This is the third message.",
    ]


def test_spec_example_event_types() -> None:
    stream = "event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\nevent: add\ndata: 113411\n\n"
    assert [(e.event, e.data) for e in decode(stream)] == [
        ("add", "73857293"),
        ("remove", "2153"),
        ("add", "113411"),
    ]


def test_spec_example_data_lines_joined() -> None:
    assert decode("data: YHOO\ndata: +2\ndata: 10\n\n") == [Event("YHOO\n+2\n10")]


def test_spec_example_comment_ids_and_one_leading_space() -> None:
    stream = ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n"
    assert decode(stream) == [Event("first event", id="1"), Event("second event"), Event(" third event")]


def test_spec_example_empty_data_and_a_block_the_stream_ends_in() -> None:
    assert decode("data\n\ndata\ndata\n\ndata:") == [Event(""), Event("\n")]


def test_spec_example_a_space_after_the_colon_is_optional() -> None:
    assert decode("data:test\n\ndata: test\n\n") == [Event("test"), Event("test")]


# The interpretation's rules one by one.


def test_a_leading_bom_is_dropped_once() -> None:
    assert decode("\ufeffdata: a\n\n") == [Event("a")]
    assert decode(b"\xef\xbb\xbfdata: a\n\n") == [Event("a")]
    # a second BOM is part of the first line's field name: not `data`, so ignored
    assert decode("\ufeff\ufeffdata: a\n\n") == []


def test_cr_lf_and_crlf_end_lines_also_when_cut_between_cr_and_lf() -> None:
    decoder = EventDecoder()
    assert decoder.feed("data: a\r") == []
    assert decoder.feed("\ndata: b\r") == []  # the LF ends the line the CR ended, not a blank line
    assert decoder.feed("\r") == [Event("a\nb")]
    assert decoder.feed("\n") == []  # a blank line with no data dispatches nothing
    assert decode("data: a\rdata: b\r\ndata: c\n\r\n") == [Event("a\nb\nc")]


def test_an_id_holding_nul_is_ignored_and_the_id_outlives_its_event() -> None:
    events = decode("id: 7\ndata: a\n\nid: 8\0\ndata: b\n\ndata: c\n\n")
    assert [(e.data, e.id) for e in events] == [("a", "7"), ("b", "7"), ("c", "7")]
    decoder = EventDecoder()
    decoder.feed("id: 9\n\n")  # no data: nothing dispatched, the last event id is set all the same
    assert decoder.last_event_id == "9"


def test_retry_counts_only_when_all_ascii_digits() -> None:
    decoder = EventDecoder()
    assert decoder.feed("retry: 1500\n\n") == []
    for ignored in ("retry: 15a", "retry: -1", "retry: ²", "retry:", "retry", "retry: 1.5", "retry:  15"):
        assert decoder.feed(ignored + "\ndata: x\n\n") == [Event("x", retry=1500)], ignored
    assert decoder.retry == 1500


def test_unknown_fields_and_fields_without_a_colon() -> None:
    assert decode("foo: bar\nevent\ndata\n\n") == [Event("")]  # `event` with no value: a message
    assert decode("Data: x\ndata : y\n\n") == []  # names are exact: no case folding, no trimming


def test_invalid_utf8_reads_as_replacement_characters() -> None:
    assert decode(b"data: a\xffb\n\n") == [Event("a\ufffdb")]


# The encoder.


def test_the_encoder_writes_the_frames_the_streams_send() -> None:
    assert encode("a\rb\r\nc\nd") == b"data: a\ndata: b\ndata: c\ndata: d\n\n"
    assert encode("") == b"data: \n\n"
    assert encode(b'{"x":1}', event="message") == b'event: message\ndata: {"x":1}\n\n'
    assert encode("[DONE]") == b"data: [DONE]\n\n"
    assert KEEP_ALIVE == b": ping\n\n"
    assert encode("x", id="4", retry=10, comment="a\nb") == b": a\n: b\nid: 4\nretry: 10\ndata: x\n\n"
    assert encode(comment="") == b":\n\n"


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"event": "answer\revent: error"}, "line ending"),
        ({"id": "1\n"}, "line ending"),
        ({"id": "1\0"}, "NUL"),
        ({"retry": -1}, "retry"),
        ({"retry": True}, "retry"),
    ],
)
def test_the_encoder_refuses_a_field_a_reader_would_misread(fields: dict[str, object], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        encode("x", **fields)  # type: ignore[arg-type]


def test_aiter_events_yields_each_event_once_whole() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for chunk in (b"data: a", b"\n\nda", b"ta: b\n", b"\n"):
            yield chunk

    async def read() -> list[Event]:
        return [event async for event in aiter_events(chunks())]

    assert asyncio.run(read()) == [Event("a"), Event("b")]


def test_wait_for_disconnect_returns_on_the_disconnect_only() -> None:
    async def scenario() -> list[str]:
        messages: asyncio.Queue[dict[str, object]] = asyncio.Queue()
        seen: list[str] = []
        asked_again = asyncio.Event()

        async def receive() -> dict[str, object]:
            if seen:
                asked_again.set()
            message = await messages.get()
            seen.append(str(message["type"]))
            return message

        watch = asyncio.ensure_future(wait_for_disconnect(receive))
        await messages.put({"type": "http.request", "body": b"", "more_body": False})
        await asyncio.wait_for(asked_again.wait(), 10)  # it read the request and waits for more
        assert not watch.done()
        await messages.put({"type": "http.disconnect"})
        await asyncio.wait_for(watch, 10)
        return seen

    assert asyncio.run(scenario()) == ["http.request", "http.disconnect"]


# One module: nothing else in the framework writes or reads event stream fields by hand.

PACKAGE = Path(__file__).resolve().parents[2] / "mesh_framework"
_FIELD_START = re.compile(r"^(?:data: |event:|id:|retry:|: ping)")
_FIELD_INSIDE = re.compile(r"[\r\n](?:data|event|id|retry):")


def hand_written_event_streams(source: str) -> list[str]:
    """What in `source` writes or reads server-sent events without `mesh_framework.sse`: a string that
    starts or holds a field (`event: ...`, `...\\ndata: ...`), the ASGI disconnect watched by hand, or a
    response read line by line (`aiter_lines`)."""
    tree = ast.parse(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str | bytes)
            and id(node) not in docstrings
        ):
            text = node.value.decode("latin-1") if isinstance(node.value, bytes) else node.value
            if _FIELD_START.match(text) or _FIELD_INSIDE.search(text) or text == "http.disconnect":
                found.append((node.lineno, repr(text[:40])))
        elif isinstance(node, ast.Attribute) and node.attr in ("aiter_lines", "iter_lines"):
            found.append((node.lineno, f".{node.attr}"))
    return [f"line {line}: {what}" for line, what in sorted(found)]


def test_no_other_module_writes_or_reads_event_streams_by_hand() -> None:
    found = {
        str(path.relative_to(PACKAGE.parent)): problems
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "sse.py" or path.parent != PACKAGE
        if (problems := hand_written_event_streams(path.read_text(encoding="utf-8")))
    }
    assert found == {}, f"use mesh_framework.sse (encode, aiter_events, wait_for_disconnect): {found}"


def test_the_rule_sees_a_hand_written_stream() -> None:
    source = '''
"""event: a docstring may say so"""
FRAME = b"event: message\\ndata: " + body + b"\\n\\n"
PING = b": ping\\n\\n"
async def read(response, receive):
    async for line in response.aiter_lines():
        if line.startswith("data:") or line.startswith("event:"):
            pass
    while (await receive())["type"] != "http.disconnect":
        pass
URL = f"data:{mime};base64,{data}"
'''
    assert hand_written_event_streams(source) == [
        "line 3: 'event: message\\ndata: '",
        "line 4: ': ping\\n\\n'",
        "line 6: .aiter_lines",
        "line 7: 'event:'",
        "line 9: 'http.disconnect'",
    ]
