"""The console's numbers agree with each other: a real registry and a real `mesh run starter_app`, whose
chat route streams the answer of `ask` (a tool of the same agent, called in process) from the fake OpenAI
server. A call made inside the agent is traffic as a remote one is (the served call and the edge); a run
its caller left before the model answered adds no token row; a client that leaves is not an error.
Plus the agent's counters on their own: what `cancelled` and an unanswered LLM run count."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from mesh_framework.console_feed import TrafficRecorder
from mesh_framework.llm.types import LlmUsage
from tests.agents import AgentProcess, loopback, run_starter_with_model, wait_until
from tests.llm_fakes import FakeLlmServer, fake_openai, streamed

pytestmark = pytest.mark.timeout(120)

QUESTION = {"messages": [{"role": "user", "content": "Say hello"}]}


@pytest.fixture(scope="module")
def model() -> Iterator[FakeLlmServer]:
    with fake_openai() as server:
        yield server


@pytest.fixture(scope="module")
def mesh(model: FakeLlmServer) -> Iterator[tuple[AgentProcess, AgentProcess]]:
    """A registry and the starter agent, once its chat route has found `ask` (its own tool)."""
    with run_starter_with_model(model.base_url) as running:
        yield running


def console(registry: AgentProcess) -> dict[str, Any]:
    answer = loopback.get(registry.base_url + "/ui/console", timeout=5)
    assert answer.status_code == 200
    return dict(answer.json())


def served(view: dict[str, Any], tool: str) -> tuple[int, int]:
    """(total calls, total errors) of `tool` in the traffic table."""
    for row in view["tools"]:
        if row["tool"] == tool:
            return row["total_calls"], row["total_errors"]
    return 0, 0


def settled(registry: AgentProcess, calls: int) -> dict[str, Any]:
    """The console once `ask` counts `calls` served calls."""

    def counted() -> dict[str, Any] | None:
        view = console(registry)
        return view if served(view, "ask")[0] == calls else None

    view = wait_until(counted, timeout=20)
    assert isinstance(view, dict)
    return view


def test_a_chat_route_call_is_traffic_and_agrees_with_its_tokens(
    mesh: tuple[AgentProcess, AgentProcess], model: FakeLlmServer
) -> None:
    registry, starter = mesh
    before = served(console(registry), "ask")[0]
    model.add(streamed("Hello", " there"))
    answer = loopback.post(starter.base_url + "/api/chat", json=QUESTION, timeout=30)
    assert answer.status_code == 200 and "data: [DONE]" in answer.text
    view = settled(registry, before + 1)
    assert served(view, "ask") == (before + 1, 0)
    # the route's call to `ask` is an edge from the agent to itself, counted once
    (edge,) = [e for e in view["edges"] if e["capability"] == "ask"]
    assert edge["from"] == edge["to"] and edge["from_name"] == "starter"
    assert (edge["total_calls"], edge["total_errors"]) == (before + 1, 0)
    # and the tokens of that one run of `ask`: one request, the model's counts
    (tokens,) = [t for t in view["tokens"] if t["tool"] == "ask"]
    assert (tokens["model"], tokens["requests"]) == ("gpt-4o-mini", before + 1)
    assert (tokens["input"], tokens["output"]) == (11 * (before + 1), 7 * (before + 1))

    # the trace shows the call under the route: the route, the call, the model's turn
    # (the route's span ends after the call is counted: it may reach the registry one console push later)
    def traced() -> set[str] | None:
        for trace in console(registry)["traces"]:
            names = {s[2] for s in trace["spans"]}
            if "POST /api/chat" in names:
                return names
        return None

    names = wait_until(traced, timeout=20)
    assert names >= {"POST /api/chat", "tools/call ask", "llm iteration 1"}


def test_a_reader_that_leaves_is_a_call_not_an_error_and_adds_no_token_row(
    mesh: tuple[AgentProcess, AgentProcess], model: FakeLlmServer
) -> None:
    registry, starter = mesh
    start = console(registry)
    calls = served(start, "ask")[0]
    tokens_before = [t for t in start["tokens"] if t["tool"] == "ask"]
    model.left_early.clear()

    # the browser leaves the chat route after the first chunk, while the model still writes
    resume = threading.Event()
    model.add(streamed("Par", "tial", pause_after=1, resume=resume))
    try:
        with loopback.stream("POST", starter.base_url + "/api/chat", json=QUESTION, timeout=30) as answer:
            assert next(answer.iter_lines()) == "data: Par"
        assert model.left_early.wait(20)  # the agent closed the model's stream: the run is over
    finally:
        resume.set()
    view = settled(registry, calls + 1)

    # an MCP client leaves a streamed call of `ask` after the first chunk, too
    model.left_early.clear()
    resume = threading.Event()
    model.add(streamed("Par", "tial", pause_after=1, resume=resume))
    body = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "ask", "arguments": {"question": "hi"}, "_meta": {"progressToken": 1}},
    }
    accept = {"Accept": "application/json, text/event-stream"}
    try:
        with loopback.stream("POST", starter.mcp_url, json=body, headers=accept, timeout=30) as answer:
            for line in answer.iter_lines():
                if line.startswith("data: "):
                    assert json.loads(line[6:])["params"]["message"] == "Par"
                    break
        assert model.left_early.wait(20)
    finally:
        resume.set()
    view = settled(registry, calls + 2)

    assert served(view, "ask")[1] == served(start, "ask")[1]  # two calls more, no error more
    (edge,) = [e for e in view["edges"] if e["capability"] == "ask"]
    assert edge["total_errors"] == 0
    assert view["totals"]["errors"] == 0
    # no model answered either run: no `unknown` row, and the known row is as it was
    assert [t for t in view["tokens"] if t["tool"] == "ask"] == tokens_before
    assert all(t["model"] != "unknown" for t in view["tokens"])

    # the traces: the turns the readers cut short end cancelled, not failed
    def cancelled_spans() -> list[list[Any]] | None:
        spans = [s for t in console(registry)["traces"] for s in t["spans"]]
        cut = [s for s in spans if s[4].endswith("(cancelled)")]
        return cut if len({s[2] for s in cut}) >= 2 else None

    cut = wait_until(cancelled_spans, timeout=20)
    assert isinstance(cut, list) and {"llm iteration 1", "tools/call ask"} <= {s[2] for s in cut}
    failed = [s for t in console(registry)["traces"] for s in t["spans"] if s[7]]
    assert failed == []


def test_the_agents_counters_count_a_cancelled_call_and_skip_an_unanswered_run() -> None:
    recorder = TrafficRecorder()
    recorder.proxy_call("ask", "http://127.0.0.1:1", "cancelled", 0.2)
    recorder.proxy_call("ask", "http://127.0.0.1:1", "error", 0.1)
    recorder.llm_usage("ask", LlmUsage())  # the caller left before the model answered
    recorder.llm_usage("ask", LlmUsage(model="m", input_tokens=3, output_tokens=2, iterations=1))
    taken = recorder.take()
    assert taken["edges"][0][:4] == ["ask", "http://127.0.0.1:1", 2, 1]  # two calls, one error
    assert taken["tokens"] == [["m", "ask", 3, 2, 1]]
