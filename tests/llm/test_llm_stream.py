"""`llm.stream()` in process: a `Stream[str]` LLM tool over a vendor streaming through its SDK (the fake
OpenAI server), the chunks on the wire, failures mid-stream, a caller that leaves, exhausted iterations,
the start-up error for structured answers, and the provider's stream tool (`<name>_stream`)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mesh_framework import LlmModel, MeshApplication, ToolExecutionError, WiringError
from mesh_framework.llm.agent import LlmAgent
from mesh_framework.llm.mesh_provider import MeshProviderModel
from mesh_framework.llm.model import LlmError
from mesh_framework.mesh.proxy import InProcessMcpMeshTool
from mesh_framework.mesh.registration import heartbeat_payload
from mesh_framework.testing import ScriptedLlm, mesh_client
from tests.llm_fakes import FakeLlmServer, fake_openai, streamed, text, tool_call

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def vendor() -> Iterator[FakeLlmServer]:
    with fake_openai() as server:
        yield server


def vendor_env(vendor: FakeLlmServer) -> dict[str, str]:
    return {
        "MESH_LLM__VENDORS__OPENAI__BASE_URL": vendor.base_url,
        "MESH_LLM__VENDORS__OPENAI__API_KEY": "sk-test-key",
    }


@pytest.fixture
def app(vendor: FakeLlmServer) -> MeshApplication:
    app = MeshApplication.load("tests.apps.llm_stream_app", environ=vendor_env(vendor))
    app.build()
    return app


@pytest.fixture
def provider(vendor: FakeLlmServer) -> MeshApplication:
    """tests/apps/llm_provider_app: `@mesh_llm_provider` serving `fake_chat` and `fake_chat_stream`."""
    app = MeshApplication.load("tests.apps.llm_provider_app", environ=vendor_env(vendor))
    app.build()
    return app


def tool(app: MeshApplication, name: str) -> InProcessMcpMeshTool:
    return InProcessMcpMeshTool(
        capability=name, function_name=name, registry=app.container.tools(), agent_id="me", endpoint=""
    )


def events(body: str) -> list[dict[str, Any]]:
    found = []
    for block in body.split("\n\n"):
        data = [line[len("data: ") :] for line in block.splitlines() if line.startswith("data: ")]
        if data:
            found.append(json.loads("\n".join(data)))
    return found


async def streamed_call(
    app: MeshApplication, name: str, arguments: dict[str, Any], seen: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """A tools/call with a progress token over the agent's HTTP endpoint: its event-stream messages; the
    tool's LLM agent put in `seen["agent"]` before the agent stops (its beans, the LLM agents among them,
    are closed then, and made anew on next use)."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, "_meta": {"progressToken": "t"}},
    }
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    async with mesh_client(app) as client:
        response = await client.http.post("/mcp", content=json.dumps(body).encode(), headers=headers)
        if seen is not None:
            seen["agent"] = app.container.tools().get(name).llm_agent
    assert response.headers["content-type"] == "text/event-stream"
    return events(response.text)


async def test_tool_iterations_run_whole_and_the_final_answer_streams_delta_by_delta(
    app: MeshApplication, vendor: FakeLlmServer
) -> None:
    vendor.add(tool_call("multiply", {"a": 6, "b": 7}), streamed("The ", "answer ", "is ", "42."))
    seen: dict[str, Any] = {}
    *progress, final = await streamed_call(app, "chat", {"prompt": "6 x 7?"}, seen)
    assert [m["params"]["message"] for m in progress] == ["The ", "answer ", "is ", "42."]
    assert final["result"]["content"] == [{"type": "text", "text": "The answer is 42."}]
    first, second = vendor.requests
    assert first["stream"] is True and [t["function"]["name"] for t in first["tools"]] == ["multiply"]
    assert second["messages"][-1] == {"role": "tool", "tool_call_id": "call_1_0", "content": "42"}
    agent = seen["agent"]
    assert isinstance(agent, LlmAgent) and agent.last_usage is not None
    assert (agent.last_usage.iterations, agent.last_usage.tool_calls) == (2, 1)
    assert agent.last_usage.input_tokens == 22  # usage of both streamed turns (include_usage)


async def test_a_vendor_stream_that_breaks_gives_the_chunks_so_far_then_an_error(
    app: MeshApplication, vendor: FakeLlmServer
) -> None:
    vendor.add(streamed("one ", "two ", "three", fail_after=2, fail="drop"))
    got: list[str] = []
    with pytest.raises(ToolExecutionError) as raised:
        async for chunk in tool(app, "chat").stream(prompt="count"):
            got.append(chunk)
    assert got == ["one ", "two "]
    assert "the stream broke" in raised.value.message
    assert vendor.base_url.rstrip("/") in raised.value.message


async def test_a_caller_that_leaves_closes_the_vendor_stream(
    app: MeshApplication, vendor: FakeLlmServer
) -> None:
    vendor.add(streamed("first", " second", hold=True))
    chunks = tool(app, "chat").stream(prompt="talk")
    async for chunk in chunks:
        assert chunk == "first"
        break
    await chunks.aclose()  # type: ignore[attr-defined]
    assert await asyncio.to_thread(vendor.left_early.wait, 10)


async def test_exhausted_iterations_end_the_stream_in_an_error(
    app: MeshApplication, vendor: FakeLlmServer
) -> None:
    vendor.add(*[tool_call("multiply", {"a": 1, "b": n}) for n in range(3)])
    with pytest.raises(ToolExecutionError, match=r"LLM tool 'chat': no final answer within max_iterations=3"):
        async for _chunk in tool(app, "chat").stream(prompt="loop"):
            pass
    assert len(vendor.requests) == 3


async def test_a_model_that_cannot_stream_gives_its_answer_once() -> None:
    app = MeshApplication.load("tests.apps.llm_stream_app", environ={})
    with app.override(LlmModel, ScriptedLlm([ScriptedLlm.call("multiply", a=2, b=3), "It is 6"])):
        app.build()
        assert [c async for c in tool(app, "chat").stream(prompt="2 x 3")] == ["It is 6"]


async def test_stream_refuses_a_structured_answer(app: MeshApplication) -> None:
    from pydantic import BaseModel

    class Answer(BaseModel):
        value: int

    agent = app.container.tools().get("chat").llm_agent
    assert isinstance(agent, LlmAgent)
    with pytest.raises(LlmError, match=r"llm.stream\(\) gives text, but the answer is to be 'Answer'"):
        async for _chunk in agent.stream("x", response_model=Answer):
            pass


def test_a_streaming_llm_tool_with_a_structured_answer_stops_start_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    package = tmp_path / "bad_llm_stream"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from pydantic import BaseModel\n"
        "from mesh_framework import MeshLlmAgent, Stream, mesh_agent, mesh_llm, mesh_tool\n\n"
        "@mesh_agent(name='bad')\nclass Agent:\n    pass\n\n"
        "class Answer(BaseModel):\n    value: int\n\n"
        "@mesh_tool()\n@mesh_llm('openai/x', response_model=Answer)\n"
        "async def talk(llm: MeshLlmAgent) -> Stream[str]:\n    yield ''\n"
    )
    with pytest.raises(WiringError) as caught:
        MeshApplication.load("bad_llm_stream", environ={})
    message = str(caught.value)
    assert "tool 'talk'" in message
    assert "returns Stream[str] but asks for a structured answer (response_model=Answer)" in message


def test_a_streaming_consumer_selects_the_providers_stream_tool(app: MeshApplication) -> None:
    payload = heartbeat_payload(app.settings, app.container.tools(), port=9)
    tools = {t["function_name"]: t for t in payload["tools"]}
    assert tools["chat_mesh"]["llm_provider"]["tags"] == ["+fake", "ai.mcpmesh.stream"]
    assert tools["ask_mesh"]["llm_provider"]["tags"] == ["+fake", "-ai.mcpmesh.stream"]


# --- the provider's stream tool -------------------------------------------------------------------------


def test_the_provider_registers_its_stream_tool_as_mcp_mesh_does(provider: MeshApplication) -> None:
    payload = heartbeat_payload(provider.settings, provider.container.tools(), port=9)
    tools = {t["function_name"]: t for t in payload["tools"]}
    buffered, stream = tools["fake_chat"], tools["fake_chat_stream"]
    assert buffered["tags"] == ["fake", "llm"] and stream["tags"] == ["fake", "llm", "ai.mcpmesh.stream"]
    assert buffered["capability"] == stream["capability"] == "llm"
    assert stream["kwargs"]["stream_type"] == "text" and stream["kwargs"]["vendor"] == "openai"
    assert "stream_type" not in buffered["kwargs"]


def request(messages: list[dict[str, Any]], **model_params: Any) -> dict[str, Any]:
    return {
        "request": {
            "messages": messages,
            "tools": None,
            "model_params": model_params or None,
            "context": None,
            "request_id": None,
            "caller_agent": None,
        }
    }


async def test_the_stream_tool_sends_frames_and_its_result_is_them_joined(
    provider: MeshApplication, vendor: FakeLlmServer
) -> None:
    vendor.add(streamed("Hel", "lo", "!"))
    *progress, final = await streamed_call(
        provider, "fake_chat_stream", request([{"role": "user", "content": "hi"}])
    )
    frames = [m["params"]["message"] for m in progress]
    assert frames == [
        '{"_mesh_frame": "chunk", "content": "Hel"}',
        '{"_mesh_frame": "chunk", "content": "lo"}',
        '{"_mesh_frame": "chunk", "content": "!"}',
        '{"_mesh_frame": "end"}',
    ]
    assert final["result"]["content"] == [{"type": "text", "text": "".join(frames)}]
    assert vendor.requests[0]["stream"] is True and vendor.requests[0]["temperature"] == 0.1


async def test_a_structured_request_comes_as_one_chunk(
    provider: MeshApplication, vendor: FakeLlmServer
) -> None:
    vendor.add(text('{"value": 3}'))
    schema = {"type": "object", "properties": {"value": {"type": "integer"}}, "required": ["value"]}
    arguments = request([{"role": "user", "content": "3"}], output_schema=schema, output_type_name="Answer")
    frames = [c async for c in tool(provider, "fake_chat_stream").stream(arguments)]
    assert [json.loads(f) for f in frames] == [
        {"_mesh_frame": "chunk", "content": '{"value": 3}'},
        {"_mesh_frame": "end"},
    ]
    assert "stream" not in vendor.requests[0]
    assert vendor.requests[0]["response_format"]["json_schema"]["name"] == "Answer"


# --- through a provider agent, in process ---------------------------------------------------------------


def through(consumer: MeshApplication, provider: MeshApplication, tool_name: str, provider_tool: str) -> None:
    """Points the consumer tool's mesh provider at `provider_tool` of the provider app, in process."""
    agent = consumer.container.tools().get(tool_name).llm_agent
    assert isinstance(agent, LlmAgent) and isinstance(agent.model, MeshProviderModel)
    agent.model.proxy = InProcessMcpMeshTool(
        capability="llm",
        function_name=provider_tool,
        registry=provider.container.tools(),
        agent_id="p",
        endpoint="",
    )


async def test_through_a_provider_the_frames_become_the_chunks(app: MeshApplication) -> None:
    provider = MeshApplication.load("tests.apps.llm_provider_app", environ={})
    model = ScriptedLlm([ScriptedLlm.deltas("Hel", "lo", "!")])
    with provider.override(LlmModel, model):
        provider.build()
        through(app, provider, "chat_any_provider", "fake_chat_stream")
        assert [c async for c in tool(app, "chat_any_provider").stream(question="hi")] == ["Hel", "lo", "!"]
    [asked] = model.requests
    assert asked.messages == [{"role": "user", "content": "hi"}] and asked.tools == []


async def test_with_a_local_tool_the_loop_runs_here_and_the_answer_comes_whole(app: MeshApplication) -> None:
    provider = MeshApplication.load("tests.apps.llm_provider_app", environ={})
    model = ScriptedLlm([ScriptedLlm.call("multiply", a=6, b=7), ScriptedLlm.deltas("4", "2")])
    with provider.override(LlmModel, model):
        provider.build()
        through(app, provider, "chat_local_tools", "fake_chat_stream")
        assert [c async for c in tool(app, "chat_local_tools").stream(question="6x7")] == ["42"]
    # one buffered provider turn per iteration; the consumer ran `multiply` itself
    assert [r.tool_names for r in model.requests] == [["multiply"], ["multiply"]]
    assert model.requests[1].tool_results() == ["42"]
