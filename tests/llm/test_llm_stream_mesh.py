"""`llm.stream()` across the mesh with real processes, ours on both sides: the streaming consumer
(tests/apps/llm_stream_app), our `@mesh_llm_provider` (the fake OpenAI server streaming through the
official SDK) and the starter agent's `add`, joined by our registry."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.agents import loopback

from ..agents import AgentProcess, run_agent, run_registry, wait_until
from ..llm_fakes import FakeLlmServer, fake_openai, streamed, tool_call

pytestmark = pytest.mark.timeout(120)

DELTAS = ("2 + ", "3 = ", "5")
ACCEPT = "application/json, text/event-stream"


@dataclass
class Mesh:
    model: FakeLlmServer
    consumer: AgentProcess
    registry: AgentProcess


@pytest.fixture(scope="module")
def mesh() -> Iterator[Mesh]:
    with fake_openai() as model, run_registry() as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MCP_MESH_HEALTH_INTERVAL": "1"}
        provider_env = {
            **env,
            "MESH_LLM__VENDORS__OPENAI__BASE_URL": model.base_url,
            "MESH_LLM__VENDORS__OPENAI__API_KEY": "sk-test",
        }
        with (
            run_agent("starter_app", env=env),
            run_agent("tests.apps.llm_provider_app", env=provider_env),
            run_agent("tests.apps.llm_stream_app", env=env) as consumer,
        ):
            # our registry names the provider's stream tool to a streaming consumer, the other to others
            wanted = {("chat_mesh", "fake_chat_stream"), ("ask_mesh", "fake_chat")}
            pattern = r"LLM tool '(\w+)': provider fakellm-\w+ at \S+ \(tool (\w+)\)"

            def resolved() -> bool:
                return wanted <= set(re.findall(pattern, consumer.text()))

            assert wait_until(resolved, timeout=20), consumer.text()[-3000:]
            yield Mesh(model, consumer, registry)


def body(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": tool, "arguments": arguments, "_meta": {"progressToken": "t"}}
    return {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params}


def stream_call(mesh: Mesh, question: str) -> tuple[list[str], dict[str, Any]]:
    response = loopback.post(
        mesh.consumer.mcp_url,
        json=body("chat_mesh", {"question": question}),
        headers={"Accept": ACCEPT},
        timeout=60,
    )
    messages = [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]
    chunks = [m["params"]["message"] for m in messages if m.get("method") == "notifications/progress"]
    (answer,) = [m for m in messages if m.get("id") == 3]
    return chunks, answer["result"]


def fresh(mesh: Mesh) -> int:
    assert mesh.model.remaining == 0, "an earlier test left scripted turns unplayed"
    return len(mesh.model.requests)


def test_the_final_answer_streams_through_our_provider(mesh: Mesh) -> None:
    before = fresh(mesh)
    mesh.model.add(tool_call("add", {"a": 2, "b": 3}), streamed(*DELTAS))
    chunks, result = stream_call(mesh, "what is 2+3?")
    assert chunks == list(DELTAS)
    assert result["content"] == [{"type": "text", "text": "2 + 3 = 5"}] and not result["isError"]
    first, second = mesh.model.requests[before:]
    assert first["stream"] is True and second["stream"] is True
    assert [t["function"]["name"] for t in first["tools"]] == ["add"]
    assert "_mesh_endpoint" not in json.dumps(first["tools"])  # the provider took it off for the model
    assert second["messages"][-1]["role"] == "tool" and second["messages"][-1]["content"] == "5"

    # the console counts the run: the provider answered, though its stream carries no token counts
    def chat_mesh_tokens() -> list[dict[str, Any]]:
        view = loopback.get(mesh.registry.base_url + "/ui/console", timeout=5).json()
        return [row for row in view["tokens"] if row["tool"] == "chat_mesh"]

    rows = wait_until(chat_mesh_tokens, timeout=15)
    assert isinstance(rows, list) and [row["requests"] for row in rows] == [1]


def test_a_vendor_failure_mid_way_reaches_the_caller_after_the_chunks(mesh: Mesh) -> None:
    fresh(mesh)
    mesh.model.add(streamed("one ", "two ", "three", fail_after=2))
    chunks, result = stream_call(mesh, "count")
    assert chunks == ["one ", "two "]
    assert result["isError"] is True
    said = result["content"][0]["text"]
    assert "LLM tool 'chat_mesh': provider fakellm-" in said
    assert "the stream broke: fake error after 2 chunks" in said


def test_exhausted_iterations_are_an_error_to_the_caller(mesh: Mesh) -> None:
    before = fresh(mesh)
    mesh.model.add(*(tool_call("add", {"a": n, "b": 1}) for n in range(4)))
    chunks, result = stream_call(mesh, "loop")
    assert chunks == [] and result["isError"] is True
    assert "the provider reached max_iterations=4" in result["content"][0]["text"]
    assert len(mesh.model.requests) - before == 4


def test_a_caller_that_leaves_closes_the_vendor_stream_two_hops_away(mesh: Mesh) -> None:
    fresh(mesh)
    mesh.model.left_early.clear()
    mesh.model.add(streamed("first", " second", hold=True))
    request = body("chat_mesh", {"question": "talk"})
    with loopback.stream(
        "POST", mesh.consumer.mcp_url, json=request, headers={"Accept": ACCEPT}, timeout=30
    ) as response:
        for line in response.iter_lines():
            if line.startswith("data: ") and json.loads(line[6:])["params"]["message"] == "first":
                break
    assert mesh.model.left_early.wait(10)  # consumer -> provider -> vendor, each connection closed

    # the consumer counts its call to the provider as one its caller left: a call, not an error
    def cancelled_calls() -> float:
        scrape = loopback.get(mesh.consumer.base_url + "/metrics", timeout=5).text
        lines = [line for line in scrape.splitlines() if line.startswith("mesh_proxy_calls_total{")]
        return sum(float(line.rsplit(" ", 1)[1]) for line in lines if 'outcome="cancelled"' in line)

    assert wait_until(lambda: cancelled_calls() == 1, timeout=10)


def test_a_provider_without_a_stream_tool_answers_through_its_buffered_tool() -> None:
    with run_registry() as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MCP_MESH_HEALTH_INTERVAL": "1"}
        with (
            run_agent("tests.apps.llm_legacy_provider_app", env=env),
            run_agent("tests.apps.llm_stream_app", env=env) as consumer,
        ):
            ready = "LLM tool 'chat_any_provider': provider legacyllm-"
            assert wait_until(lambda: ready in consumer.text(), timeout=20), consumer.text()[-3000:]
            response = loopback.post(
                consumer.mcp_url,
                json=body("chat_any_provider", {"question": "hi"}),
                headers={"Accept": ACCEPT},
                timeout=60,
            )
            messages = [
                json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")
            ]
            chunks = [m["params"]["message"] for m in messages if m.get("method") == "notifications/progress"]
            assert chunks == ["A whole answer."]
            assert messages[-1]["result"]["content"] == [{"type": "text", "text": "A whole answer."}]
            # logged before the answer, read from the agent's output by another thread: waited for
            fallback = "has no tool 'fake_chat_stream'; asking its buffered tool"
            assert wait_until(lambda: fallback in consumer.text(), timeout=10, processes=(consumer,))
