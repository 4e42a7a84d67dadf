"""LLM over the mesh with real processes: our @mesh_llm consumer, our @mesh_llm_provider (an OpenAI-
compatible model: the fake OpenAI server through the official SDK) and a tool agent, joined by a registry."""

from __future__ import annotations

from typing import Any

import pytest

from mesh_framework import LlmModel, MeshApplication
from mesh_framework.testing import ScriptedLlm, mesh_client

from ..agents import run_agent, run_cli, run_registry, wait_until
from ..llm_fakes import fake_openai, text, tool_call

call = ScriptedLlm.call


def test_consumer_provider_and_tool_agent_across_the_mesh() -> None:
    script = [tool_call("add", {"a": 2, "b": 3}), text("2 + 3 = 5")]
    with fake_openai(script) as model, run_registry() as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url}
        provider_env = {
            **env,
            "MESH_LLM__VENDORS__OPENAI__BASE_URL": model.base_url,
            "MESH_LLM__VENDORS__OPENAI__API_KEY": "sk-test",
        }
        with (
            run_agent("starter_app", env=env),
            run_agent("tests.apps.llm_provider_app", env=provider_env),
            run_agent("tests.apps.llm_mesh_app", env=env) as consumer,
        ):
            answer: Any = None

            def answered() -> bool:
                nonlocal answer
                answer = run_cli(["call", "ask_mesh", '{"question": "what is 2+3?"}'], env=env)
                return answer.returncode == 0 and "5" in answer.stdout

            assert wait_until(answered, timeout=30), (answer.stdout, answer.stderr, consumer.text()[-3000:])
            assert answer.stdout.strip() == "2 + 3 = 5"
    first, second = model.requests
    assert [t["function"]["name"] for t in first["tools"]] == ["add"]  # llm_tools of the registry
    assert "_mesh_endpoint" not in str(first["tools"])  # the consumer runs the tools itself
    assert first["model"] == "gpt-fake" and first["temperature"] == 0.1
    tool_results = [m for m in second["messages"] if m["role"] == "tool"]
    assert tool_results and tool_results[0]["content"] == "5"  # add ran on the starter agent


async def test_the_provider_runs_the_loop_when_tools_carry_endpoints() -> None:
    app = MeshApplication.load("tests.apps.llm_provider_app", environ={})
    model = ScriptedLlm([call("add", a=20, b=22), "It is 42"])
    with run_agent("starter_app") as tools_agent, app.override(LlmModel, model):
        async with mesh_client(app) as client:
            listed = {t["name"]: t for t in await client.list_tools()}
            assert "request" in listed["fake_chat"]["inputSchema"]["properties"]
            request = {
                "messages": [{"role": "user", "content": "20 + 22?"}],
                "tools": [
                    {
                        "type": "function",
                        "function": {
                            "name": "add",
                            "description": "Add two integers",
                            "parameters": {"type": "object", "properties": {"a": {}, "b": {}}},
                            "_mesh_endpoint": tools_agent.base_url,
                        },
                    }
                ],
                "model_params": {"max_iterations": 3, "temperature": 0},
                "context": None,
                "request_id": None,
                "caller_agent": None,
            }
            result = await client.call_tool("fake_chat", {"request": request})
    answer = result["structuredContent"]
    assert answer["role"] == "assistant" and answer["content"] == "It is 42"
    assert answer["_mesh_usage"]["model"] == "openai/gpt-fake"  # the configured model, as mcp-mesh reports
    assert model.requests[1].tool_results() == ["42"]
    assert model.requests[0].params == {"temperature": 0}  # control keys removed


async def test_without_endpoints_the_provider_answers_one_turn_with_tool_calls() -> None:
    app = MeshApplication.load("tests.apps.llm_provider_app", environ={})
    model = ScriptedLlm([call("add", a=1, b=2)])
    with app.override(LlmModel, model):
        async with mesh_client(app) as client:
            tools = [{"type": "function", "function": {"name": "add", "parameters": {"type": "object"}}}]
            request = {"messages": [{"role": "user", "content": "1+2"}], "tools": tools}
            result = await client.call_tool("fake_chat", {"request": request})
    answer = result["structuredContent"]
    assert answer["tool_calls"][0]["function"] == {"name": "add", "arguments": '{"a": 1, "b": 2}'}
    assert answer["content"] == "" and "_mesh_usage" in answer


async def test_the_provider_reports_max_iterations_like_mcp_mesh() -> None:
    app = MeshApplication.load("tests.apps.llm_provider_app", environ={})
    model = ScriptedLlm([call("add", a=1, b=1)] * 3)
    with run_agent("starter_app") as tools_agent, app.override(LlmModel, model):
        async with mesh_client(app) as client:
            tools = [
                {
                    "type": "function",
                    "function": {"name": "add", "parameters": {}, "_mesh_endpoint": tools_agent.base_url},
                }
            ]
            request = {
                "messages": [{"role": "user", "content": "loop"}],
                "tools": tools,
                "model_params": {"max_iterations": 2},
            }
            result = await client.call_tool("fake_chat", {"request": request})
    assert result["structuredContent"]["_mesh_stop_reason"] == "max_iterations"


@pytest.mark.parametrize("mode", ["strict", "hint", "text"])
async def test_the_provider_honours_mcp_mesh_output_modes(mode: str) -> None:
    app = MeshApplication.load("tests.apps.llm_provider_app", environ={})
    model = ScriptedLlm(['```json\n{"steps": ["boil"]}\n```'])
    schema = {"type": "object", "properties": {"steps": {"type": "array"}}, "required": ["steps"]}
    params = {"output_schema": schema, "output_type_name": "Plan", "output_mode": mode, "model": "gpt-other"}
    params["response_format"] = {"type": "json_schema"}  # what mcp-mesh consumers send beside the schema
    with app.override(LlmModel, model):
        async with mesh_client(app) as client:
            messages = [{"role": "system", "content": "Plan."}, {"role": "user", "content": "tea"}]
            request = {"messages": messages, "model_params": params}
            result = await client.call_tool("fake_chat", {"request": request})
    sent = model.requests[0]
    assert not {"output_schema", "model", "response_format"} & sent.params.keys()
    if mode == "strict":
        assert sent.response_schema is not None and sent.response_schema["title"] == "Plan"
    else:
        assert sent.response_schema is None
    assert ("matching this schema" in sent.messages[0]["content"]) is (mode == "hint")
    assert result["structuredContent"]["content"] == '```json\n{"steps": ["boil"]}\n```'  # one turn: as sent


def test_every_answer_shape_of_mcp_mesh_providers_is_read() -> None:
    from mesh_framework.llm.mesh_provider import parse_provider_answer

    plain = parse_provider_answer("just text")
    assert plain.content == "just text" and not plain.tool_calls
    as_json = parse_provider_answer(
        '{"role": "assistant", "content": "hi", "_mesh_usage": {"prompt_tokens": 3}}'
    )
    assert as_json.content == "hi" and as_json.input_tokens == 3
    structured = parse_provider_answer('{"steps": ["a"]}')  # a structured answer's JSON stays the content
    assert structured.content == '{"steps": ["a"]}'
    calls = parse_provider_answer(
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "add", "arguments": '{"a": 1}'}},
                {"id": "c2", "type": "function", "function": {"name": "sub", "arguments": {"a": 2}}},
                {"id": "c3", "type": "function", "function": {"name": "bad", "arguments": "{oops"}},
            ],
            "_mesh_usage": {"prompt_tokens": 5, "completion_tokens": 7, "model": "openai/gpt-x"},
            "_mesh_stop_reason": "max_iterations",
        }
    )
    assert [(c.id, c.name, c.arguments) for c in calls.tool_calls] == [
        ("c1", "add", {"a": 1}),
        ("c2", "sub", {"a": 2}),
        ("c3", "bad", None),
    ]
    assert (calls.model, calls.input_tokens, calls.output_tokens, calls.stop_reason) == (
        "openai/gpt-x",
        5,
        7,
        "max_iterations",
    )
