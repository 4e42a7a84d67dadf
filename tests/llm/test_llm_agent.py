"""@mesh_llm tools end to end in process, with a scripted model: the tool loop, structured answers,
system prompts, settings layers, usage, and the errors users meet."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from mesh_framework import LlmModel, MeshApplication, WiringError, usage_of
from mesh_framework.llm.config import resolve_llm_config
from mesh_framework.mesh.registration import heartbeat_payload
from mesh_framework.testing import ScriptedLlm, mesh_client

call = ScriptedLlm.call


def load(**env: str) -> MeshApplication:
    return MeshApplication.load("tests.apps.llm_app", environ=env)


async def test_the_loop_calls_local_tools_and_answers() -> None:
    app = load()
    model = ScriptedLlm([call("multiply", a=6, b=7), "6 times 7 is 42"])
    with app.override(LlmModel, model):
        async with mesh_client(app) as client:
            tools = {t["name"]: t for t in await client.list_tools()}
            assert "llm" not in tools["ask"]["inputSchema"]["properties"]  # injected, hidden
            result = await client.call_tool("ask", {"question": "6 x 7?"})
    assert result["structuredContent"] == {"result": "6 times 7 is 42"}
    first, second = model.requests
    assert first.tool_names == ["multiply", "divide"]
    assert first.messages[0]["role"] == "system"
    assert "careful assistant for ada" in first.messages[0]["content"]
    assert "The question is: 6 x 7?" in first.messages[0]["content"]
    assert first.messages[1] == {"role": "user", "content": "6 x 7?"}
    assert first.params["max_tokens"] == 500  # llm.defaults from application.yaml
    assert second.tool_results() == ["42"]
    assert model.called_tools == ["multiply"]


async def test_tool_errors_unknown_tools_and_bad_arguments_go_back_to_the_model() -> None:
    app = load()
    model = ScriptedLlm(
        [
            [call("divide", a=1, b=0), call("launch_rockets"), ScriptedLlm.raw_call("multiply", "{not json")],
            "I could not compute that",
        ]
    )
    with app.override(LlmModel, model):
        async with mesh_client(app) as client:
            result = await client.call_tool("ask", {"question": "1/0?"})
    assert result["structuredContent"] == {"result": "I could not compute that"}
    divided, invented, garbled = model.requests[1].tool_results()
    assert divided == "Error: division by zero"
    assert invented.startswith("Error: there is no tool named 'launch_rockets' (tools: divide, multiply)")
    assert garbled.startswith("Error: the arguments of 'multiply' are not a JSON object")


async def test_structured_answers_are_validated_with_one_repair_turn() -> None:
    app = load()
    model = ScriptedLlm(
        ['{"goal": "tea", "steps": "boil"}', '```json\n{"goal": "tea", "steps": ["boil", "pour"]}\n```']
    )
    with app.override(LlmModel, model):
        async with mesh_client(app) as client:
            result = await client.call_tool("plan", {"goal": "tea"})
    assert result["structuredContent"] == {"goal": "tea", "steps": ["boil", "pour"]}
    assert model.requests[0].response_schema is not None
    assert model.requests[0].response_schema["properties"]["steps"]["type"] == "array"
    repair = model.requests[1].messages[-1]
    assert (
        repair["role"] == "user"
        and "steps" in repair["content"]
        and "not valid Plan JSON" in repair["content"]
    )
    assert model.requests[0].params["temperature"] == 0.3


async def test_an_answer_that_never_validates_is_a_clear_error() -> None:
    app = load()
    with app.override(LlmModel, ScriptedLlm(["not json", "still not json"])):
        async with mesh_client(app) as client:
            result = await client.call_tool("plan", {"goal": "tea"})
    assert result["isError"]
    text = result["content"][0]["text"]
    assert "LLM tool 'plan': the model's answer does not match Plan after a repair turn" in text


async def test_max_iterations_from_settings_is_a_clear_error() -> None:
    app = load()  # llm.plan.max-iterations: 4 in application.yaml beats the decorator's 3
    with app.override(LlmModel, ScriptedLlm([call("nothing")] * 10)):
        async with mesh_client(app) as client:
            result = await client.call_tool("plan", {"goal": "loop"})
    text = result["content"][0]["text"]
    assert "no final answer within max_iterations=4" in text and "transcript has" in text


def test_mcp_mesh_env_names_and_layers() -> None:
    app = load(MESH_LLM_MAX_ITERATIONS="7", MESH_LLM_MODEL="openai/gpt-4.1")
    configs = app.container.llm_configs().configs  # the LLM feature's plan, made while the app loads
    assert configs["plan"].max_iterations == 4  # llm.plan (yaml) still beats the env default
    assert configs["ask"].max_iterations == 7  # env default beats the code default
    assert configs["ask"].model == "openai/gpt-4.1" and configs["ask"].origins["model"].startswith(
        "environment"
    )
    assert configs["plan"].model_params == {"temperature": 0.3, "max_tokens": 500}


async def test_usage_travels_on_the_answer() -> None:
    app = load()
    model = ScriptedLlm([call("multiply", a=2, b=2), "four"])
    with app.override(LlmModel, {"ask": model, "plan": ScriptedLlm([])}):
        app.build()
        agent: Any = app.container.llm_agents()["ask"]
        answer = await agent("2x2?")
    assert answer == "four"
    usage = usage_of(answer)
    assert usage is not None and usage.iterations == 2 and usage.tool_calls == 1 and usage.model == "scripted"
    measured = usage.latency_ms  # present; its size is for benchmarks, not tests
    assert isinstance(measured, float) and agent.last_usage is usage


def test_heartbeat_carries_mcp_mesh_llm_fields() -> None:
    app = MeshApplication.load("tests.apps.llm_mesh_app", environ={})
    app.build()
    tools = {
        t["function_name"]: t for t in heartbeat_payload(app.settings, app.container.tools(), 9)["tools"]
    }
    assert tools["ask_mesh"]["llm_filter"] == {"filter": [{"capability": "add"}], "filter_mode": "all"}
    assert tools["ask_mesh"]["llm_provider"] == {
        "namespace": "default",
        "capability": "llm",
        "tags": ["+fake", "-ai.mcpmesh.stream"],
        "version": "",
    }


def _write_app(tmp_path: Path, body: str, name: str) -> str:
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text(
        "from mesh_framework import MeshLlmAgent, mesh_agent, mesh_llm, mesh_tool\n\n"
        "@mesh_agent(name='bad')\nclass Agent:\n    pass\n\n" + body
    )
    return name


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "@mesh_tool()\nasync def t(llm: MeshLlmAgent) -> str:\n    return ''\n",
            "takes a MeshLlmAgent but has no @mesh_llm(...)",
        ),
        (
            "@mesh_tool()\n@mesh_llm('openai/x')\nasync def t() -> str:\n    return ''\n",
            "has @mesh_llm but no parameter typed MeshLlmAgent",
        ),
        (
            "@mesh_tool()\n@mesh_llm('gpt4')\nasync def t(llm: MeshLlmAgent) -> str:\n    return ''\n",
            "provider 'gpt4' (from code (@mesh_llm parameter)) is neither 'vendor/model'",
        ),
        (
            "@mesh_tool()\n@mesh_llm('openai/x', system_prompt='file://missing.j2')\n"
            "async def t(llm: MeshLlmAgent) -> str:\n    return ''\n",
            "system_prompt = 'file://missing.j2' (from code (@mesh_llm parameter)): no such file",
        ),
        (
            "@mesh_tool()\n@mesh_llm('openai/x', tools=['nowhere'])\nasync def t(llm: MeshLlmAgent) -> str:\n"
            "    return ''\n",
            "tools=['nowhere'] (from code (@mesh_llm parameter)) name no MCP server of the catalog",
        ),
    ],
)
def test_start_up_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str, expected: str) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    name = _write_app(tmp_path, body, f"bad_llm_{abs(hash(body)) % 10**8}")
    with pytest.raises(WiringError) as caught:
        MeshApplication.load(name, environ={})
    assert expected in str(caught.value)


def test_a_broken_prompt_template_names_file_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    name = _write_app(
        tmp_path,
        "@mesh_tool()\n@mesh_llm('openai/x', system_prompt='file://broken.j2')\n"
        "async def t(llm: MeshLlmAgent) -> str:\n    return ''\n",
        "bad_llm_template",
    )
    (tmp_path / name / "broken.j2").write_text("line one\nHello {{ user\n")
    with pytest.raises(WiringError, match=r"broken.j2:2: the system prompt is not a valid Jinja2 template"):
        MeshApplication.load(name, environ={})


def test_config_resolution_needs_a_provider() -> None:
    from mesh_framework.config.loader import load_settings
    from mesh_framework.decorators import mesh_llm
    from mesh_framework.errors import ConfigError

    @mesh_llm()
    async def nothing() -> str:
        return ""

    with pytest.raises(ConfigError, match="LLM tool 'nothing': no provider"):
        resolve_llm_config("nothing", nothing, load_settings(environ={}))
    config = resolve_llm_config(
        "nothing", nothing, load_settings(environ={"MESH_LLM_MODEL": "openai/gpt-4o"})
    )
    assert config.provider == "openai/gpt-4o" and config.direct


async def test_per_call_options_and_message_lists() -> None:
    from pydantic import BaseModel

    class Verdict(BaseModel):
        ok: bool

    app = load()
    model = ScriptedLlm(['{"ok": true}'])
    with app.override(LlmModel, model):
        app.build()
        agent: Any = app.container.llm_agents()["ask"]
        verdict = await agent(
            [
                {"role": "user", "content": "first"},
                {"role": "assistant", "content": "yes"},
                {"role": "user", "content": "ok?"},
            ],
            system_prompt="Judge.",
            response_model=Verdict,
            temperature=0,
        )
    assert verdict == Verdict(ok=True) and usage_of(verdict) is not None
    request = model.requests[0]
    assert request.messages[0] == {"role": "system", "content": "Judge."}
    assert [m["content"] for m in request.messages[1:]] == ["first", "yes", "ok?"]
    assert request.params["temperature"] == 0 and request.params["max_tokens"] == 500


async def test_a_mesh_provider_that_matches_nothing_answers_at_once_naming_the_selector() -> None:
    app = MeshApplication.load("tests.apps.llm_mesh_app", environ={"MESH_REGISTRY__ENABLED": "false"})
    async with mesh_client(app) as client:
        result = await client.call_tool("ask_mesh", {"question": "hi"})
    text = result["content"][0]["text"]
    assert result["isError"] and "no provider agent matches {'capability': 'llm', 'tags': ['+fake']}" in text


@pytest.mark.parametrize(
    ("provider", "expected"),
    [
        (
            "mistral/large",
            "Unknown LLM vendor 'mistral' in 'mistral/large'. Known vendors: anthropic, openai.",
        ),
        ("openai/gpt-4o", "needs the openai SDK: pip install 'mesh-framework[openai]'"),
    ],
)
def test_vendor_problems_stop_start_up(monkeypatch: pytest.MonkeyPatch, provider: str, expected: str) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "openai" else real(name, *a)
    )
    app = load(MESH_LLM__ASK__PROVIDER=provider, MESH_LLM__PLAN__PROVIDER=provider)
    with pytest.raises(WiringError, match=re.escape(expected)):
        app.build()


def test_filters_on_the_wire_like_mcp_mesh() -> None:
    from mesh_framework.config.loader import load_settings
    from mesh_framework.decorators import mesh_llm

    @mesh_llm(
        {"capability": "llm"}, filter=[{"tags": ["search"]}, "add", {"capability": "cal", "tags": ["+v2"]}]
    )
    async def tagged() -> str:
        return ""

    @mesh_llm("openai/x", filter="*")
    async def everything() -> str:
        return ""

    fields = resolve_llm_config("tagged", tagged, load_settings(environ={})).heartbeat_fields("ns")
    assert fields["llm_filter"] == {
        "filter": [{"tags": ["search"]}, {"capability": "add"}, {"capability": "cal", "tags": ["+v2"]}],
        "filter_mode": "all",
    }
    assert fields["llm_provider"]["namespace"] == "ns"
    wildcard = resolve_llm_config("everything", everything, load_settings(environ={})).heartbeat_fields("ns")
    # a direct-mode tool also names its model (for the mesh page; MCP Mesh's registry ignores the field)
    assert wildcard == {"llm_filter": {"filter": ["*"], "filter_mode": "*"}, "llm_model": "openai/x"}
