"""Web routes with an injected `MeshLlmAgent` (`@mesh_llm`), on real processes: the model a provider agent
of the mesh (the fake OpenAI server through the official SDK) with a mesh tool, or a vendor's directly."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from mesh_framework import MeshApplication, WiringError
from tests.agents import loopback

from ..agents import run_agent, run_registry, wait_until
from ..llm_fakes import fake_openai, streamed, text, tool_call

pytestmark = pytest.mark.timeout(90)


def test_a_route_asks_the_mesh_llm_which_uses_a_mesh_tool() -> None:
    script = [tool_call("add", {"a": 2, "b": 3}), text("2 + 3 = 5")]
    with fake_openai(script) as model, run_registry() as registry:
        env = {"MCP_MESH_REGISTRY_URL": registry.base_url, "MCP_MESH_HEALTH_INTERVAL": "1"}
        provider_env = {
            **env,
            "MESH_LLM__VENDORS__OPENAI__BASE_URL": model.base_url,
            "MESH_LLM__VENDORS__OPENAI__API_KEY": "sk-test",
        }
        with (
            run_agent("starter_app", env=env),
            run_agent("tests.apps.llm_provider_app", env=provider_env),
            run_agent("tests.apps.routes_llm_app", env=env) as asker,
            httpx2.Client(trust_env=False, timeout=30) as http,
        ):

            def answered() -> Any:
                answer = http.get(asker.base_url + "/api/ask", params={"question": "what is 2+3?"})
                return answer.json() if answer.status_code == 200 else None

            assert wait_until(answered, timeout=30) == {"answer": "2 + 3 = 5"}
            agents = http.get(registry.base_url + "/agents").json()["agents"]
            [entry] = [a for a in agents if a["name"] == "web-asker"]
            assert entry["agent_type"] == "api"
    first, second = model.requests
    assert [t["function"]["name"] for t in first["tools"]] == ["add"]  # llm_tools of the route
    tool_results = [m for m in second["messages"] if m["role"] == "tool"]
    assert tool_results and tool_results[0]["content"] == "5"  # add ran on the starter agent


def test_a_route_asks_a_vendor_model_directly() -> None:
    with fake_openai([text("Paris")]) as model:
        env = {
            "MESH_LLM__VENDORS__OPENAI__BASE_URL": model.base_url,
            "MESH_LLM__VENDORS__OPENAI__API_KEY": "sk",
        }
        with run_agent("tests.apps.routes_llm_app", env=env) as asker:
            answer = loopback.post(
                asker.base_url + "/api/ask-direct", params={"question": "Capital of France?"}, timeout=30
            )
            assert answer.json() == {"answer": "Paris"}
    [request] = model.requests
    assert request["model"] == "gpt-fake"
    assert request["messages"][-1]["content"] == "Capital of France?"


def test_a_chat_route_streams_the_vendor_stream_and_a_browser_leaving_closes_it() -> None:
    script = [streamed("Hel", "lo", " world"), streamed("first", " second", hold=True)]
    with fake_openai(script) as model:
        env = {
            "MESH_LLM__VENDORS__OPENAI__BASE_URL": model.base_url,
            "MESH_LLM__VENDORS__OPENAI__API_KEY": "sk",
        }
        with run_agent("tests.apps.routes_llm_app", env=env) as asker, httpx2.Client(trust_env=False) as http:
            answer = http.get(asker.base_url + "/api/chat", params={"question": "hi"}, timeout=30)
            assert answer.headers["content-type"] == "text/event-stream; charset=utf-8"
            assert answer.content == b"data: Hel\n\ndata: lo\n\ndata:  world\n\ndata: [DONE]\n\n"
            with http.stream(
                "GET", asker.base_url + "/api/chat", params={"question": "hold"}, timeout=30
            ) as held:
                lines = held.iter_lines()
                assert next(lines) == "data: first"
            # the browser left: the route's generator closed, and with it the vendor's stream
            assert model.left_early.wait(timeout=10)
    assert model.requests[0]["stream"] is True


def test_a_route_taking_an_llm_needs_mesh_llm(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "no_llm_mark"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from mesh_framework import MeshLlmAgent, mesh_agent, mesh_route\n\n"
        "@mesh_agent(name='x')\nclass X:\n    pass\n\n"
        "@mesh_route('/ask')\nasync def ask(llm: MeshLlmAgent) -> str:\n    return ''\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(WiringError) as raised:
        MeshApplication.load("no_llm_mark", environ={})
    assert "route GET /ask: takes a MeshLlmAgent but has no @mesh_llm(...)" in str(raised.value)
