"""LLM interop with the real MCP Mesh: mcp-mesh 3.8 `@mesh.llm` / `@mesh.llm_provider` agents and ours, on the
real registry binary, with the fake OpenAI server as the model. Everything runs on loopback.

The agents reach the registry through a `MeshTap` (tests/interop/mcp_mesh.py), which records every heartbeat
and every agent-to-agent call, so the tests check the wire as well as the answers. The module runs two
meshes, each started once: mcp-mesh's consumers (`mesh-asker`, `mesh-stream-asker`) with our provider, and
mcp-mesh's provider with our consumers (`asker`, `sum-asker`, `llm-stream`); each test scripts the model's
turns, makes one call and checks what that call caused. The streamed answers (an mcp-mesh `llm.stream()`
consumer through our `@mesh_llm_provider`, our `llm.stream()` through mcp-mesh's `@mesh.llm_provider`, the
fake OpenAI server streaming the model's turns) are checked on the same meshes: the frames on the wire as
well as the chunks the caller gets.
`tests/interop/llm_capture.py` writes the buffered exchanges out as fixtures (tests/interop/llm_captures/).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.agents import AgentProcess, loopback, run_agent
from tests.agents import wait_until as wait_for
from tests.cli_in_process import run_cli_in_process
from tests.interop.mcp_mesh import (
    AGENTS_DIR,
    Exchange,
    MeshRegistry,
    MeshTap,
    enter_concurrently,
    meshctl,
    registry_agents,
    run_mesh_python_agent,
    run_mesh_registry,
    sse_messages,
)
from tests.llm_fakes import FakeLlmServer, Turn, fake_openai, json_answer, streamed, text, tool_call

pytestmark = pytest.mark.timeout(180)

INTEROP_DIR = Path(__file__).resolve().parent.parent / "interop"
MESH_ASKER = INTEROP_DIR / "llm_asker.py"  # mcp-mesh @mesh.llm consumer: tools `mesh_ask`, `mesh_sum`
MESH_STREAM_ASKER = INTEROP_DIR / "llm_stream_asker.py"  # mcp-mesh streaming consumer: tool `mesh_chat`
MESH_PROVIDER = INTEROP_DIR / "llm_provider.py"  # mcp-mesh @mesh.llm_provider: tool `fake_chat`
# mcp-mesh's own default. The helper's 0.5 s raced the SDK's immediate uvicorn start once here, with
# our agents starting on the same 2 cores (the agent then serves on a second, broken server).
MESH_AGENT_ENV = {"MCP_MESH_DEBOUNCE_DELAY": "1.0"}
QUESTION = "what is 2+3?"
TEXT_TURNS = (tool_call("add", {"a": 2, "b": 3}), text("2 + 3 = 5"))
SUM = {"value": 5, "explanation": "2 + 3 = 5"}
SUM_TURNS = (tool_call("add", {"a": 2, "b": 3}), json_answer(SUM))
DELTAS = ("2 + ", "3 = ", "5")
STREAM_TURNS = (tool_call("add", {"a": 2, "b": 3}), streamed(*DELTAS))
SUM_SCHEMA = {
    "description": "A sum and how it was found.",
    "properties": {
        "value": {"title": "Value", "type": "integer"},
        "explanation": {"title": "Explanation", "type": "string"},
    },
    "required": ["value", "explanation"],
    "title": "Sum",
    "type": "object",
}


@dataclass
class LlmMesh:
    """A running mesh: the fake model, the real registry, the tap all agents heartbeat through."""

    model: FakeLlmServer
    registry: MeshRegistry
    tap: MeshTap
    home: Path
    endpoints: dict[str, str] = field(default_factory=dict)  # agent name -> real endpoint
    consumers: dict[str, AgentProcess] = field(default_factory=dict)  # ours, by app

    def registry_answer(self, agent_name: str, tool: str) -> dict[str, Any]:
        """The last heartbeat answer to `agent_name` that names an LLM provider for `tool`."""
        for exchange in reversed(self.tap.heartbeats(agent_name)):
            answer = exchange.response_json
            if (answer.get("llm_providers") or {}).get(tool):
                return dict(answer)
        raise AssertionError(f"no heartbeat answer to {agent_name} resolved an LLM provider for {tool}")


@dataclass
class Called:
    """What one call caused: its answer, the model's requests and the agent-to-agent calls."""

    answer: Any
    model_requests: list[dict[str, Any]]
    exchanges: list[Exchange]
    registry_url: str

    def calls(self, tool: str) -> list[Exchange]:
        """The successful `tools/call`s of `tool` between agents (our client's first call to an
        mcp-mesh agent is refused with 400 for its protocol version, then sent again)."""
        return [
            e
            for e in self.exchanges
            if e.target != self.registry_url
            and e.rpc_method == "tools/call"
            and e.request_json["params"]["name"] == tool
            and e.status == 200
        ]


def healthy(registry: MeshRegistry) -> dict[str, str]:
    return {a["name"]: a["endpoint"] for a in registry_agents(registry) if a.get("status") == "healthy"}


@contextmanager
def llm_mesh(tmp_path: Path) -> Iterator[tuple[LlmMesh, ExitStack]]:
    with (
        fake_openai() as model,
        run_mesh_registry(tmp_path / "registry") as registry,
        MeshTap(registry) as tap,
        ExitStack() as stack,
    ):
        yield LlmMesh(model, registry, tap, tmp_path / "home"), stack


@contextmanager
def mcp_mesh_consumer_mesh(tmp_path: Path, *, streaming: bool = False) -> Iterator[LlmMesh]:
    """mcp-mesh's `@mesh.llm` consumer (`mesh-asker`), our `@mesh_llm_provider` (`fakellm`, the fake
    OpenAI server) and our `add` (`starter`); with `streaming`, mcp-mesh's streaming `@mesh.llm` consumer
    (`mesh-stream-asker`) too."""
    with llm_mesh(tmp_path) as (mesh, stack):
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
        # Started last, so their first heartbeat answer already names the provider and the tools.
        mesh_env = {**MESH_AGENT_ENV, "MCP_MESH_REGISTRY_URL": mesh.tap.url}
        askers = [MESH_ASKER, *([MESH_STREAM_ASKER] if streaming else [])]
        enter_concurrently(stack, *(run_mesh_python_agent(a, mesh.registry, mesh_env) for a in askers))
        mesh.endpoints = healthy(mesh.registry)
        yield mesh


# Our consumers in the provider mesh, each with what it logs once its LLM tool has found mcp-mesh's provider.
CONSUMERS = {
    "tests.apps.llm_mesh_app": "provider mesh-fakellm-",
    "tests.interop.llm_app": "provider mesh-fakellm-",
}
STREAM_CONSUMER = {"tests.apps.llm_stream_app": "LLM tool 'chat_mesh': provider mesh-fakellm-"}


@contextmanager
def mcp_mesh_provider_mesh(tmp_path: Path, *, streaming: bool = False) -> Iterator[LlmMesh]:
    """mcp-mesh's `@mesh.llm_provider` (`mesh-fakellm`, the fake OpenAI server) and `add` (`mesh-adder`),
    with two of our `@mesh_llm` consumers: `asker` (tests/apps/llm_mesh_app, a text answer) and
    `sum-asker` (tests/interop/llm_app, a structured answer); with `streaming`, our streaming consumer
    `llm-stream` (tests/apps/llm_stream_app) too."""
    with llm_mesh(tmp_path) as (mesh, stack):
        mesh_env = {**MESH_AGENT_ENV, "MCP_MESH_REGISTRY_URL": mesh.tap.url}
        enter_concurrently(
            stack,
            run_mesh_python_agent(AGENTS_DIR / "adder.py", mesh.registry, mesh_env),
            run_mesh_python_agent(
                MESH_PROVIDER, mesh.registry, {**mesh_env, "FAKE_OPENAI_BASE_URL": mesh.model.base_url}
            ),
        )
        ours = {"MCP_MESH_REGISTRY_URL": mesh.tap.url, "MCP_MESH_HEALTH_INTERVAL": "1"}
        apps: Mapping[str, str] = {**CONSUMERS, **(STREAM_CONSUMER if streaming else {})}
        started = enter_concurrently(stack, *(run_agent(app, env=ours) for app in apps))
        mesh.consumers = dict(zip(apps, started, strict=True))
        for app, consumer in mesh.consumers.items():
            wait_for(lambda c=consumer, said=apps[app]: said in c.text(), timeout=15)
        mesh.endpoints = healthy(mesh.registry)
        yield mesh


def call_through(mesh: LlmMesh, turns: tuple[Turn, ...], call: Any) -> Called:
    """Script the model's `turns`, then retry `call() -> (ok, answer, detail)` until it works (an agent may
    still be applying its first heartbeat answer; such a failure reaches neither model nor provider)."""
    assert mesh.model.remaining == 0, "an earlier test left scripted turns unplayed"
    requests_before, exchanges_before = len(mesh.model.requests), len(mesh.tap.exchanges)
    mesh.model.add(*turns)
    outcome: Any = None

    def worked() -> bool:
        nonlocal outcome
        outcome = call()
        return bool(outcome[0])

    try:
        wait_for(worked, timeout=20)
    except AssertionError:
        pytest.fail(f"the call did not succeed: {outcome[2]}")
    assert mesh.model.remaining == 0, "the model was asked fewer times than scripted"
    return Called(
        outcome[1],
        mesh.model.requests[requests_before:],
        mesh.tap.exchanges[exchanges_before:],
        mesh.tap.registry_url,
    )


class OneMeshAtATime:
    """The module's meshes, one running at a time: asking for one stops the other. Each starts once for the
    buffered and the streamed tests (which leave it as they found it: every turn they script is played), as
    the consumers' classes come first and the providers' after."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        self._tmp = tmp_path_factory
        self._stack = ExitStack()
        self._running: tuple[str, LlmMesh] | None = None

    def get(self, kind: str) -> LlmMesh:
        if self._running is not None and self._running[0] == kind:
            return self._running[1]
        self.close()
        start = mcp_mesh_consumer_mesh if kind == "consumer" else mcp_mesh_provider_mesh
        mesh = self._stack.enter_context(start(self._tmp.mktemp(f"mcp-mesh-{kind}"), streaming=True))
        self._running = (kind, mesh)
        return mesh

    def close(self) -> None:
        self._running = None
        self._stack.close()


@pytest.fixture(scope="module")
def meshes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OneMeshAtATime]:
    running = OneMeshAtATime(tmp_path_factory)
    try:
        yield running
    finally:
        running.close()


@pytest.fixture
def consumer_mesh(meshes: OneMeshAtATime) -> LlmMesh:
    """mcp-mesh's consumers with our provider (`mcp_mesh_consumer_mesh`)."""
    return meshes.get("consumer")


@pytest.fixture
def provider_mesh(meshes: OneMeshAtATime) -> LlmMesh:
    """mcp-mesh's provider with our consumers (`mcp_mesh_provider_mesh`)."""
    return meshes.get("provider")


def tool_names(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools") or []]


def tool_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in request["messages"] if m["role"] == "tool"]


def chat_request(exchange: Exchange) -> dict[str, Any]:
    return dict(exchange.request_json["params"]["arguments"]["request"])


class TestAnMcpMeshConsumerWithOurProvider:
    @staticmethod
    def ask(mesh: LlmMesh, tool: str, turns: tuple[Turn, ...]) -> Called:
        def call() -> tuple[bool, Any, str]:
            arguments = json.dumps({"question": QUESTION})
            done = meshctl(["call", tool, arguments, "--raw"], mesh.registry, mesh.home)
            ok = done.returncode == 0 and not json.loads(done.stdout).get("isError")
            return ok, json.loads(done.stdout) if ok else None, done.stdout + done.stderr

        return call_through(mesh, turns, call)

    def test_a_text_answer_with_our_tool(self, consumer_mesh: LlmMesh) -> None:
        mesh = consumer_mesh
        called = self.ask(mesh, "mesh_ask", TEXT_TURNS)

        assert called.answer["structuredContent"] == {"result": "2 + 3 = 5"}

        # The model: the consumer's system prompt and question, the registry's `add` (endpoint removed)...
        first, second = called.model_requests
        assert first["model"] == "gpt-fake" and first["temperature"] == 0.1
        assert first["messages"][0]["role"] == "system"
        assert first["messages"][0]["content"].startswith("You are a calculator. Use tools.")
        assert first["messages"][-1] == {"role": "user", "content": QUESTION}
        assert tool_names(first) == ["add"] and "_mesh_endpoint" not in json.dumps(first["tools"])
        assert first["tools"][0]["function"]["parameters"]["required"] == ["a", "b"]
        # ...then the result of `add`, which our provider ran itself on the starter agent.
        [result] = tool_messages(second)
        assert result["content"] == "5"
        assert result["tool_call_id"] == second["messages"][-2]["tool_calls"][0]["id"]

        # The registry named our provider's tool and vendor to the mcp-mesh consumer.
        provider = mesh.registry_answer("mesh-asker", "mesh_ask")["llm_providers"]["mesh_ask"]
        assert provider["name"] == "fake_chat" and provider["vendor"] == "openai"
        assert provider["endpoint"] == mesh.endpoints["fakellm"]

        # mcp-mesh's MeshLlmRequest: tools with `_mesh_endpoint`, so our provider ran the loop (one call).
        [chat] = called.calls("fake_chat")
        request = chat_request(chat)
        assert request["model_params"] == {"max_iterations": 3}
        assert request["caller_agent"] is None
        [add_tool] = request["tools"]
        assert mesh.tap.real_endpoint(add_tool["function"]["_mesh_endpoint"]) == mesh.endpoints["starter"]
        # Our answer: MCP Mesh's assistant-message dict, as structured content and as JSON text.
        answer = chat.response_json["result"]
        assert answer["structuredContent"] == {
            "role": "assistant",
            "content": "2 + 3 = 5",
            "_mesh_usage": {"prompt_tokens": 22, "completion_tokens": 14, "model": "openai/gpt-fake"},
        }
        assert json.loads(answer["content"][0]["text"]) == answer["structuredContent"]
        [add] = called.calls("add")
        assert add.target == mesh.endpoints["starter"]
        # the tool arguments, and the trace context MCP Mesh carries beside them (its servers strip it)
        arguments = dict(add.request_json["params"]["arguments"])
        assert len(arguments.pop("_trace_id")) == 32 and len(arguments.pop("_parent_span")) == 16
        assert arguments == {"a": 2, "b": 3}

    def test_a_structured_answer(self, consumer_mesh: LlmMesh) -> None:
        mesh = consumer_mesh
        called = self.ask(mesh, "mesh_sum", SUM_TURNS)

        assert called.answer["structuredContent"] == SUM

        # mcp-mesh's consumer sends the schema twice: `output_schema` for the provider, and the
        # `response_format` its OpenAI handler made of it (the registry said our vendor is openai).
        [chat] = called.calls("fake_chat")
        params = chat_request(chat)["model_params"]
        assert params["output_schema"] == SUM_SCHEMA and params["output_type_name"] == "Sum"
        assert params["response_format"]["json_schema"]["strict"] is True
        # Our provider applies the schema itself (the consumer's ready-made copy is dropped): the model
        # gets a response_format named after the output type, built from `output_schema`, every turn.
        for request in called.model_requests:
            sent = request["response_format"]["json_schema"]
            assert sent["name"] == "Sum" and sent["schema"]["properties"] == SUM_SCHEMA["properties"]
            assert tool_names(request) == ["add"]
        answer = chat.response_json["result"]["structuredContent"]
        assert json.loads(answer["content"]) == SUM


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
    response = loopback.post(url, json=body, headers=headers, timeout=60)
    messages = sse_messages(response.text)
    chunks = [m["params"]["message"] for m in messages if m.get("method") == "notifications/progress"]
    (answer,) = [m for m in messages if m.get("id") == 5]
    return chunks, answer.get("result") or {"isError": True, "content": [{"text": json.dumps(answer)}]}


def ask_streamed(mesh: LlmMesh, agent: str, tool: str, turns: tuple[Turn, ...], *, fails: str = "") -> Called:
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


class TestAnMcpMeshStreamingConsumerWithOurProvider:
    def test_the_answer_streams_delta_by_delta(self, consumer_mesh: LlmMesh) -> None:
        mesh = consumer_mesh
        called = ask_streamed(mesh, "mesh-stream-asker", "mesh_chat", STREAM_TURNS)

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
        called = ask_streamed(
            mesh, "mesh-stream-asker", "mesh_chat", turns, fails="Exceeded maximum 3 iterations"
        )

        chunks, result = called.answer
        assert chunks == [] and result["isError"] is True
        [chat] = called.calls("fake_chat_stream")
        assert frames(chat) == [{"_mesh_frame": "end", "stop_reason": "max_iterations"}]

    def test_a_vendor_failure_mid_way_reaches_the_caller_after_the_chunks(
        self, consumer_mesh: LlmMesh
    ) -> None:
        mesh = consumer_mesh
        turns = (streamed("one ", "two ", "three", fail_after=2),)
        called = ask_streamed(mesh, "mesh-stream-asker", "mesh_chat", turns, fails="the stream broke")

        chunks, result = called.answer
        assert chunks == ["one ", "two "] and result["isError"] is True
        [chat] = called.calls("fake_chat_stream")
        assert frames(chat) == [{"_mesh_frame": "chunk", "content": c} for c in ("one ", "two ")]


# The consumer each `mesh call` names: `llm-stream`, in the same mesh, serves an `ask_mesh` too.
CONSUMER_OF = {"ask_mesh": "asker", "sum_mesh": "sum-asker"}


class TestOurConsumersWithAnMcpMeshProvider:
    @staticmethod
    def ask(mesh: LlmMesh, tool: str, turns: tuple[Turn, ...], monkeypatch: pytest.MonkeyPatch) -> Called:
        """`mesh call TOOL --agent CONSUMER` (the CLI run in this process: a client here, not what is
        tested)."""
        agent = CONSUMER_OF[tool]

        def call() -> tuple[bool, Any, str]:
            arguments = json.dumps({"question": QUESTION})
            done = run_cli_in_process(
                ["call", tool, arguments, "--agent", agent, "--registry-url", mesh.registry.url],
                monkeypatch,
                env={"MCP_MESH_REGISTRY_URL": mesh.registry.url},
            )
            return done.returncode == 0, done.stdout.strip(), done.stdout + done.stderr

        return call_through(mesh, turns, call)

    def test_a_text_answer_with_an_mcp_mesh_tool(
        self, provider_mesh: LlmMesh, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        mesh = provider_mesh
        called = self.ask(mesh, "ask_mesh", TEXT_TURNS, monkeypatch)

        assert called.answer == "2 + 3 = 5"

        # mcp-mesh's provider called the model once per turn, with the tools we sent (no endpoints).
        first, second = called.model_requests
        assert first["model"] == "gpt-fake"
        assert first["messages"] == [{"role": "user", "content": QUESTION}]
        assert tool_names(first) == ["add"] and "_mesh_endpoint" not in json.dumps(first["tools"])
        [result] = tool_messages(second)
        assert result["content"] == "5"

        # The registry picked mcp-mesh's non-streaming tool for our `-ai.mcpmesh.stream` selector.
        provider = mesh.registry_answer("asker", "ask_mesh")["llm_providers"]["ask_mesh"]
        assert provider["name"] == "fake_chat" and provider["vendor"] == "openai"
        assert provider["tags"] == ["fake", "llm"]

        # Two provider calls, one turn each; the first answered `tool_calls`, which we ran ourselves.
        turn1, turn2 = called.calls("fake_chat")
        for turn in (turn1, turn2):
            request = chat_request(turn)
            assert "_mesh_endpoint" not in json.dumps(request["tools"])
            assert request["model_params"] == {"max_iterations": 1}
            assert "text/event-stream" in turn.response_headers["content-type"]  # mcp-mesh answers SSE
        asked = turn1.response_json["result"]["structuredContent"]
        assert asked["content"] == "" and asked["role"] == "assistant"
        [call] = asked["tool_calls"]
        assert call["function"] == {"name": "add", "arguments": '{"a": 2, "b": 3}'}
        usage = {"prompt_tokens": 11, "completion_tokens": 7, "model": "openai/gpt-fake"}  # declared model
        assert asked["_mesh_usage"] == usage
        [add] = called.calls("add")
        assert add.target == mesh.endpoints["mesh-adder"]
        # the tool arguments, and the trace context MCP Mesh carries beside them (its servers strip it)
        arguments = dict(add.request_json["params"]["arguments"])
        assert len(arguments.pop("_trace_id")) == 32 and len(arguments.pop("_parent_span")) == 16
        assert arguments == {"a": 2, "b": 3}
        assert add.response_json["result"]["structuredContent"] == {"result": 5}
        replied = chat_request(turn2)["messages"]
        assert replied[-1] == {"role": "tool", "tool_call_id": call["id"], "content": "5"}
        final = turn2.response_json["result"]["structuredContent"]
        assert final["content"] == "2 + 3 = 5" and "tool_calls" not in final

    def test_a_structured_answer(self, provider_mesh: LlmMesh, monkeypatch: pytest.MonkeyPatch) -> None:
        mesh = provider_mesh
        called = self.ask(mesh, "sum_mesh", SUM_TURNS, monkeypatch)

        assert json.loads(called.answer) == SUM

        # We send the schema (`output_mode: strict`); mcp-mesh's provider makes it a strict
        # `response_format` (closing the object) for each turn.
        for turn in called.calls("fake_chat"):
            params = chat_request(turn)["model_params"]
            assert params == {
                "max_iterations": 1,
                "output_schema": SUM_SCHEMA,
                "output_type_name": "Sum",
                "output_mode": "strict",
            }
        for request in called.model_requests:
            schema = request["response_format"]["json_schema"]
            assert schema["strict"] is True and schema["name"] == "Sum"
            assert schema["schema"] == {**SUM_SCHEMA, "additionalProperties": False}


class TestOurStreamingConsumerWithAnMcpMeshProvider:
    def test_the_answer_streams_delta_by_delta(self, provider_mesh: LlmMesh) -> None:
        mesh = provider_mesh
        called = ask_streamed(mesh, "llm-stream", "chat_mesh", STREAM_TURNS)

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
        called = ask_streamed(mesh, "llm-stream", "chat_mesh", turns, fails="max_iterations=4")

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
        called = ask_streamed(
            mesh, "llm-stream", "chat_mesh", turns, fails="LLM tool 'chat_mesh': provider mesh-fakellm-"
        )

        chunks, result = called.answer
        assert chunks == ["one ", "two "] and result["isError"] is True
