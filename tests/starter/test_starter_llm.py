"""The starter app's `ask` tool: an LLM with a local tool and a catalog server, against the fake OpenAI
server through the official SDK (a real vendor works the same with OPENAI_API_KEY set)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from mesh_framework import MeshApplication
from mesh_framework.testing import mesh_client

from ..llm_fakes import fake_openai, text, tool_call


async def test_ask_uses_add_and_the_notes_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    script = [tool_call("add", {"a": 2, "b": 3}), tool_call("add_note", {"text": "2+3=5"}), text("5, noted.")]
    with fake_openai(script) as model:
        environ = {
            "MESH_LLM__VENDORS__OPENAI__BASE_URL": model.base_url,
            "MESH_LLM__VENDORS__OPENAI__API_KEY": "k",
        }
        app = MeshApplication.load("starter_app", environ=environ)
        async with mesh_client(app) as client:
            result = await client.call_tool("ask", {"question": "What is 2+3? Note it."})
    # `ask` streams; called without a progress token it answers the whole text (no structured content)
    assert result["content"] == [{"type": "text", "text": "5, noted."}]
    assert "structuredContent" not in result
    first, second, third = model.requests
    assert first["model"] == "gpt-4o-mini"
    assert "starter agent's assistant" in first["messages"][0]["content"]
    assert sorted(t["function"]["name"] for t in first["tools"]) == ["add", "add_note", "list_notes"]
    assert second["messages"][-1] == {
        "role": "tool",
        "tool_call_id": second["messages"][-1]["tool_call_id"],
        "content": "5",
    }
    assert third["messages"][-1]["content"] == "1"  # the notes server kept one note


async def test_without_a_key_the_agent_starts_and_the_call_says_what_to_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    app = MeshApplication.load("starter_app", environ={})
    async with mesh_client(app) as client:
        greeting = await client.call_tool("greet", {"name": "Ada"})
        assert greeting["isError"] is False
        result = await client.call_tool("ask", {"question": "hi"})
    assert result["isError"]
    assert (
        "OPENAI_API_KEY" in result["content"][0]["text"] and "Traceback" not in result["content"][0]["text"]
    )


async def test_with_the_azure_profile_ask_talks_through_the_starter_s_own_azure_client(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    with fake_openai([text("Bonjour")]) as model:
        environ = {
            "MESH_PROFILES_ACTIVE": "azure",
            "AZURE_OPENAI_ENDPOINT": model.url,
            "AZURE_OPENAI_API_KEY": "azure-key",
        }
        app = MeshApplication.load("starter_app", environ=environ)
        assert app.selection is not None
        assert "openai_client" not in {d.name for d in app.selection.beans}  # the app's client won
        async with mesh_client(app) as client:
            result = await client.call_tool("ask", {"question": "Say hello in French."})
            azure = app.container.azure_openai()
        assert azure.is_closed()  # the agent closed the application's client at stop
    assert result["content"] == [{"type": "text", "text": "Bonjour"}]
    sent = model.received[0]
    assert sent.path == "/openai/deployments/gpt-4o-mini/chat/completions"  # the deployment: the model
    assert sent.headers["api-key"] == "azure-key"
