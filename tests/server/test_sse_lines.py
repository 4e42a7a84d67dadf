"""A chunk of a `Stream[str]` route cannot forge server-sent events: the one encoder (`mesh_framework.sse`,
tested on its own in tests/server/test_sse.py) splits a payload on `\\r\\n`, `\\n` and a lone `\\r` (the line
endings an event stream reader splits on) into `data:` lines of one event."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from mesh_framework.sse import Event, decode
from tests.agents import AgentProcess, loopback, run_agent

pytestmark = pytest.mark.timeout(60)

FORGERY = "a\revent: error\rdata: x"


@pytest.fixture(scope="module")
def agent() -> Iterator[AgentProcess]:
    with run_agent("tests.apps.sse_lines_app") as running:
        yield running


def stream_of(agent: AgentProcess, chunks: list[str]) -> list[Event]:
    with loopback.stream(
        "GET",
        agent.base_url + "/api/echo",
        params={"chunks": json.dumps(chunks)},
        timeout=10,
    ) as answer:
        assert answer.status_code == 200
        return decode(answer.read())


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
