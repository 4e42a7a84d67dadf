"""LLM streaming with the real MCP Mesh, both ways, on its registry binary, with the fake OpenAI server
streaming the model's turns: an mcp-mesh 3.8 `llm.stream()` consumer through our `@mesh_llm_provider`
(its `fake_chat_stream` tool), and our `llm.stream()` through mcp-mesh's `@mesh.llm_provider`.

The agents reach the registry through a `MeshTap` (tests/interop/mcp_mesh.py), so the tests check the
frames on the wire as well as the chunks the caller gets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.agents import run_agent
from tests.agents import wait_until as wait_for
from tests.interop.mcp_mesh import (
    AGENTS_DIR,
    enter_concurrently,
    run_mesh_python_agent,
    sse_messages,
)
from tests.interop.test_interop_llm import (
    MESH_AGENT_ENV,
    MESH_PROVIDER,
    QUESTION,
    Called,
    LlmMesh,
    call_through,
    chat_request,
    healthy,
    llm_mesh,
)
from tests.llm_fakes import Turn, streamed, tool_call

pytestmark = pytest.mark.timeout(180)

MESH_STREAM_ASKER = Path(__file__).resolve().parent.parent / "interop" / "llm_stream_asker.py"
DELTAS = ("2 + ", "3 = ", "5")
STREAM_TURNS = (tool_call("add", {"a": 2, "b": 3}), streamed(*DELTAS))


def stream_call(endpoint: str, tool: str, arguments: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """A streamed `tools/call` (progress token 1, as MCP Mesh's proxy sends): the chunks and the result."""
    body = {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": {"progressToken": 1}},
    }
    headers = {"Accept": "application/json, text/event-stream"}
    url = endpoint.rstrip("/") + "/mcp"
    response = httpx2.post(url, json=body, headers=headers, timeout=60, trust_env=False)
    messages = sse_messages(response.text)
    chunks = [m["params"]["message"] for m in messages if m.get("method") == "notifications/progress"]
    (answer,) = [m for m in messages if m.get("id") == 5]
    return chunks, answer.get("result") or {"isError": True, "content": [{"text": json.dumps(answer)}]}


def ask(mesh: LlmMesh, agent: str, tool: str, turns: tuple[Turn, ...], *, fails: str = "") -> Called:
    """Script `turns` and make one streamed call of `tool` (expected to fail with `fails` when given)."""

    def call() -> tuple[bool, Any, str]:
        chunks, result = stream_call(mesh.endpoints[agent], tool, {"question": QUESTION})
        said = " ".join(str(c.get("text")) for c in result.get("content") or [])
        ok = fails in said if fails else not result.get("isError")
        return ok, (chunks, result), said

    return call_through(mesh, turns, call)


def frames(exchange: Any) -> list[dict[str, Any]]:
    """The provider's frames in a recorded streamed call."""
    messages = sse_messages(exchange.response_text)
    return [
        json.loads(m["params"]["message"]) for m in messages if m.get("method") == "notifications/progress"
    ]


@pytest.fixture(scope="class")
def consumer_mesh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlmMesh]:
    """mcp-mesh's streaming `@mesh.llm` consumer, our `@mesh_llm_provider` and our `add` (`starter`)."""
    with llm_mesh(tmp_path_factory.mktemp("stream-consumer")) as (mesh, stack):
        ours = {"MCP_MESH_REGISTRY_URL": mesh.tap.url, "MCP_MESH_HEALTH_INTERVAL": "1"}
        provider_env = {
            **ours,
            "MESH_LLM__VENDORS__OPENAI__BASE_URL": mesh.model.base_url,
            "MESH_LLM__VENDORS__OPENAI__API_KEY": "sk-test",
        }
        enter_concurrently(
            stack,
            run_agent("starter_app", env=ours),
            run_agent("tests.apps.llm_provider_app", env=provider_env),
        )
        wait_for(lambda: {"starter", "fakellm"} <= healthy(mesh.registry).keys(), timeout=15)
        mesh_env = {**MESH_AGENT_ENV, "MCP_MESH_REGISTRY_URL": mesh.tap.url}
        stack.enter_context(run_mesh_python_agent(MESH_STREAM_ASKER, mesh.registry, mesh_env))
        mesh.endpoints = healthy(mesh.registry)
        yield mesh


class TestAnMcpMeshStreamingConsumerWithOurProvider:
    def test_the_answer_streams_delta_by_delta(self, consumer_mesh: LlmMesh) -> None:
        mesh = consumer_mesh
        called = ask(mesh, "mesh-stream-asker", "mesh_chat", STREAM_TURNS)

        chunks, result = called.answer
        assert chunks == list(DELTAS)
        assert result["content"][0]["text"] == "2 + 3 = 5"

        # The registry named our stream tool to the consumer's `ai.mcpmesh.stream` selector.
        answer = mesh.registry_answer("mesh-stream-asker", "mesh_chat")["llm_providers"]["mesh_chat"]
        assert answer["name"] == "fake_chat_stream" and "ai.mcpmesh.stream" in answer["tags"]
        assert answer["kwargs"]["stream_type"] == "text" and answer["vendor"] == "openai"

        # Our provider ran the loop (the tools carry `_mesh_endpoint`), calling `add` on the starter agent,
        # and sent the final turn as chunk frames, then an end frame; its result is the frames joined.
        [chat] = called.calls("fake_chat_stream")
        [add_tool] = chat_request(chat)["tools"]
        assert mesh.tap.real_endpoint(add_tool["function"]["_mesh_endpoint"]) == mesh.endpoints["starter"]
        sent = frames(chat)
        assert sent == [*({"_mesh_frame": "chunk", "content": d} for d in DELTAS), {"_mesh_frame": "end"}]
        final = next(m for m in sse_messages(chat.response_text) if "result" in m)["result"]
        texts = [m["params"]["message"] for m in sse_messages(chat.response_text) if "params" in m]
        assert final["content"][0]["text"] == "".join(texts)
        [add] = called.calls("add")
        assert add.target == mesh.endpoints["starter"]
        assert all(request["stream"] is True for request in called.model_requests)

    def test_exhausted_iterations_end_with_a_max_iterations_frame(self, consumer_mesh: LlmMesh) -> None:
        mesh = consumer_mesh
        turns = tuple(tool_call("add", {"a": n, "b": 1}) for n in range(3))
        called = ask(mesh, "mesh-stream-asker", "mesh_chat", turns, fails="Exceeded maximum 3 iterations")

        chunks, result = called.answer
        assert chunks == [] and result["isError"] is True
        [chat] = called.calls("fake_chat_stream")
        assert frames(chat) == [{"_mesh_frame": "end", "stop_reason": "max_iterations"}]

    def test_a_vendor_failure_mid_way_reaches_the_caller_after_the_chunks(
        self, consumer_mesh: LlmMesh
    ) -> None:
        mesh = consumer_mesh
        turns = (streamed("one ", "two ", "three", fail_after=2),)
        called = ask(mesh, "mesh-stream-asker", "mesh_chat", turns, fails="the stream broke")

        chunks, result = called.answer
        assert chunks == ["one ", "two "] and result["isError"] is True
        [chat] = called.calls("fake_chat_stream")
        assert frames(chat) == [{"_mesh_frame": "chunk", "content": c} for c in ("one ", "two ")]


@pytest.fixture(scope="class")
def provider_mesh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlmMesh]:
    """mcp-mesh's `@mesh.llm_provider` and `add` (`mesh-adder`), our streaming consumer `llm-stream`."""
    with llm_mesh(tmp_path_factory.mktemp("stream-provider")) as (mesh, stack):
        mesh_env = {**MESH_AGENT_ENV, "MCP_MESH_REGISTRY_URL": mesh.tap.url}
        enter_concurrently(
            stack,
            run_mesh_python_agent(AGENTS_DIR / "adder.py", mesh.registry, mesh_env),
            run_mesh_python_agent(
                MESH_PROVIDER, mesh.registry, {**mesh_env, "FAKE_OPENAI_BASE_URL": mesh.model.base_url}
            ),
        )
        ours = {"MCP_MESH_REGISTRY_URL": mesh.tap.url, "MCP_MESH_HEALTH_INTERVAL": "1"}
        consumer = stack.enter_context(run_agent("tests.apps.llm_stream_app", env=ours))
        wait_for(lambda: "LLM tool 'chat_mesh': provider mesh-fakellm-" in consumer.text(), timeout=15)
        mesh.endpoints = healthy(mesh.registry)
        yield mesh


class TestOurStreamingConsumerWithAnMcpMeshProvider:
    def test_the_answer_streams_delta_by_delta(self, provider_mesh: LlmMesh) -> None:
        mesh = provider_mesh
        called = ask(mesh, "llm-stream", "chat_mesh", STREAM_TURNS)

        chunks, result = called.answer
        assert chunks == list(DELTAS)
        assert result["content"] == [{"type": "text", "text": "2 + 3 = 5"}]

        answer = mesh.registry_answer("llm-stream", "chat_mesh")["llm_providers"]["chat_mesh"]
        assert answer["name"] == "fake_chat_stream" and "ai.mcpmesh.stream" in answer["tags"]

        # mcp-mesh's provider ran the loop on its stream tool, calling `add` at the endpoint we sent.
        [chat] = called.calls("fake_chat_stream")
        request = chat_request(chat)
        [add_tool] = request["tools"]
        assert mesh.tap.real_endpoint(add_tool["function"]["_mesh_endpoint"]) == mesh.endpoints["mesh-adder"]
        assert request["model_params"] == {"max_iterations": 4}
        assert frames(chat) == [
            *({"_mesh_frame": "chunk", "content": d} for d in DELTAS),
            {"_mesh_frame": "end"},
        ]
        [add] = called.calls("add")
        assert add.target == mesh.endpoints["mesh-adder"]

    def test_exhausted_iterations_are_an_error_to_the_caller(self, provider_mesh: LlmMesh) -> None:
        mesh = provider_mesh
        turns = tuple(tool_call("add", {"a": n, "b": 1}) for n in range(4))
        called = ask(mesh, "llm-stream", "chat_mesh", turns, fails="max_iterations=4")

        chunks, result = called.answer
        assert chunks == [] and result["isError"] is True
        said = result["content"][0]["text"]
        assert "LLM tool 'chat_mesh': the provider reached max_iterations=4" in said
        [chat] = called.calls("fake_chat_stream")
        assert frames(chat) == [{"_mesh_frame": "end", "stop_reason": "max_iterations"}]

    def test_a_vendor_failure_mid_way_reaches_the_caller_after_the_chunks(
        self, provider_mesh: LlmMesh
    ) -> None:
        mesh = provider_mesh
        turns = (streamed("one ", "two ", "three", fail_after=2),)
        called = ask(
            mesh, "llm-stream", "chat_mesh", turns, fails="LLM tool 'chat_mesh': provider mesh-fakellm-"
        )

        chunks, result = called.answer
        assert chunks == ["one ", "two "] and result["isError"] is True
