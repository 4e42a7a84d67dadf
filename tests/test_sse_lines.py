"""A chunk cannot forge server-sent events: every writer splits a payload on `\\r\\n`, `\\n` and a lone `\\r`
(the line endings an event stream reader splits on) into `data:` lines of one event."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

import httpx2
import pytest

from mesh_framework.sse_frames import data_lines, event_frame
from tests.agents import AgentProcess, run_agent

pytestmark = pytest.mark.timeout(60)

FORGERY = "a\revent: error\rdata: x"


@dataclass
class Event:
    event: str
    data: str


def read_events(stream: Iterator[str]) -> list[Event]:
    """Events as the HTML standard's event stream parser dispatches them (lines split on CRLF, LF and a
    lone CR; `data` lines joined with LF; comments and other fields ignored)."""
    text = "".join(stream)
    events: list[Event] = []
    name, data = "", []
    for line in re.split(r"\r\n|\r|\n", text):
        if line == "":
            if data:
                events.append(Event(name or "message", "\n".join(data)))
            name, data = "", []
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "event":
            name = value
        elif field == "data":
            data.append(value)
    return events


@pytest.fixture(scope="module")
def agent() -> Iterator[AgentProcess]:
    with run_agent("tests.apps.sse_lines_app") as running:
        yield running


def stream_of(agent: AgentProcess, chunks: list[str]) -> list[Event]:
    with httpx2.stream(
        "GET",
        agent.base_url + "/api/echo",
        params={"chunks": json.dumps(chunks)},
        timeout=10,
        trust_env=False,
    ) as answer:
        assert answer.status_code == 200
        return read_events(answer.iter_text())


def test_a_chunk_with_carriage_returns_is_one_event_of_a_stream_route(agent: AgentProcess) -> None:
    events = stream_of(agent, [FORGERY, "before\r\nafter", "x\rdata: [DONE]", "last"])
    assert [e.event for e in events] == ["message"] * 5
    assert [e.data for e in events] == [
        "a\nevent: error\ndata: x",
        "before\nafter",
        "x\ndata: [DONE]",
        "last",
        "[DONE]",
    ]


def test_the_encoder_splits_on_every_line_ending() -> None:
    assert data_lines("a\rb\r\nc\nd") == "data: a\ndata: b\ndata: c\ndata: d\n"
    assert event_frame("") == b"data: \n\n"
    assert event_frame('{"x":1}', "answer") == b'event: answer\ndata: {"x":1}\n\n'
    with pytest.raises(ValueError, match="line ending"):
        event_frame("x", "answer\revent: error")
