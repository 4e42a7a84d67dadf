"""The vendor SDK clients are beans of the agent: the framework's, made from `llm.vendors.*` on the first
call and shared by the vendor's models, or the application's own `openai.AsyncOpenAI` /
`anthropic.AsyncAnthropic` bean, which wins (Spring Boot's ConditionalOnMissingBean); the container closes
either at stop, and `mesh beans --all` shows why each was or was not defined. The official SDKs talk to the
fake vendor servers of tests/llm_fakes."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from mesh_framework import MeshApplication, WiringError
from mesh_framework.di.conditions import ConditionContext, OnMissingBean, conditional_on_missing_bean
from mesh_framework.di.wiring import is_assignable
from mesh_framework.testing import mesh_client

from ..cli_in_process import run_cli_in_process
from ..llm_fakes import FakeLlmServer, fake_anthropic, fake_openai, text

APP = "tests.apps.llm_client_app"
ASK = {"question": "Capital of France?"}


@contextmanager
def vendors(openai_turns: int = 0, anthropic_turns: int = 0) -> Iterator[tuple[FakeLlmServer, FakeLlmServer]]:
    with (
        fake_openai([text(f"openai {n}") for n in range(openai_turns)]) as openai_server,
        fake_anthropic([text(f"anthropic {n}") for n in range(anthropic_turns)]) as anthropic_server,
    ):
        yield openai_server, anthropic_server


def environ(openai_server: FakeLlmServer, anthropic_server: FakeLlmServer, mode: str = "") -> dict[str, str]:
    return {
        "MESH_CLIENTS__MODE": mode,
        "MESH_LLM__VENDORS__OPENAI__BASE_URL": openai_server.base_url,
        "MESH_LLM__VENDORS__OPENAI__API_KEY": "settings-key",
        "MESH_LLM__VENDORS__OPENAI__MAX_RETRIES": "0",
        "MESH_LLM__VENDORS__ANTHROPIC__BASE_URL": anthropic_server.base_url,
        "MESH_LLM__VENDORS__ANTHROPIC__API_KEY": "settings-key",
        "MESH_LLM__VENDORS__ANTHROPIC__MAX_RETRIES": "0",
    }


def defined(app: MeshApplication) -> set[str]:
    assert app.selection is not None
    return {d.name for d in app.selection.beans}


async def test_without_a_client_of_its_own_the_agent_s_is_made_from_settings_shared_and_closed() -> None:
    with vendors(openai_turns=2, anthropic_turns=1) as (openai_server, anthropic_server):
        app = MeshApplication.load(APP, environ=environ(openai_server, anthropic_server))
        assert {"openai_client", "anthropic_client"} <= defined(app)
        async with mesh_client(app) as client:
            openai_bean = app.container.openai_client()
            # made on the first call: an agent starts without a key
            assert repr(openai_bean) == "VendorClient('openai', not made yet)"
            assert await client.call_ok("ask", ASK) == "openai 0"
            assert await client.call_ok("summarize", {"text": "t"}) == "openai 1"
            assert await client.call_ok("ask_claude", ASK) == "anthropic 0"
            sdk = openai_bean.client()
            claude_sdk = app.container.anthropic_client().client()
            agents = app.container.llm_agents()
            # both openai models talk through the one client of the container
            assert agents["ask"].model._model._client is sdk
            assert agents["summarize"].model._model._client is sdk
            assert not sdk.is_closed()
        assert sdk.is_closed() and claude_sdk.is_closed()  # closed by the container at stop
    assert [r.api_key for r in openai_server.received] == ["settings-key", "settings-key"]
    assert [r.body["model"] for r in openai_server.received] == ["gpt-fake", "gpt-fake-mini"]
    assert anthropic_server.received[0].api_key == "settings-key"


async def test_an_application_s_own_clients_are_the_ones_used_and_closed_at_stop() -> None:
    with vendors(openai_turns=1, anthropic_turns=1) as (openai_server, anthropic_server):
        app = MeshApplication.load(APP, environ=environ(openai_server, anthropic_server, "own"))
        names = defined(app)
        assert {"team_openai", "team_anthropic"} <= names
        assert not {"openai_client", "anthropic_client"} & names  # the app's beans won
        async with mesh_client(app) as client:
            assert await client.call_ok("ask", ASK) == "openai 0"
            assert await client.call_ok("ask_claude", ASK) == "anthropic 0"
            own, own_claude = app.container.team_openai(), app.container.team_anthropic()
            assert app.container.llm_agents()["ask"].model._model._client is own
        assert own.is_closed() and own_claude.is_closed()
    sent, sent_claude = openai_server.received[0], anthropic_server.received[0]
    assert (sent.headers["x-team"], sent.api_key) == ("blue", "own-key")
    assert (sent_claude.headers["x-team"], sent_claude.api_key) == ("red", "own-key")


async def test_an_application_client_that_cannot_be_made_fails_the_call_naming_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with vendors() as (openai_server, anthropic_server):
        app = MeshApplication.load(APP, environ=environ(openai_server, anthropic_server, "broken"))
        async with mesh_client(app) as client:  # the bean is lazy: the agent starts
            result = await client.call_tool("ask", ASK)
    assert result["isError"]
    message = result["content"][0]["text"]
    said = "openai/gpt-fake: bean 'keyless_openai' (openai.AsyncOpenAI) cannot be made: OpenAIError"
    assert said in message
    assert "Traceback" not in message
    assert openai_server.received == []


def test_two_openai_clients_neither_primary_stop_start_up() -> None:
    with vendors() as (openai_server, anthropic_server), pytest.raises(WiringError) as raised:
        app = MeshApplication.load(APP, environ=environ(openai_server, anthropic_server, "two"))
        app.build()
    assert "the client of the openai models (openai.AsyncOpenAI): 2 components match type AsyncOpenAI" in str(
        raised.value
    )


async def test_a_provider_agent_s_model_uses_the_agent_s_client() -> None:
    with fake_openai([text("served")]) as openai_server:
        env = {"MESH_LLM__VENDORS__OPENAI__BASE_URL": openai_server.base_url, "OPENAI_API_KEY": "k"}
        app = MeshApplication.load("tests.apps.llm_provider_app", environ=env)
        async with mesh_client(app) as client:
            request = {"messages": [{"role": "user", "content": "hi"}]}
            result = await client.call_tool("fake_chat", {"request": request})
            sdk = app.container.openai_client().client()
            assert app.container.llm_provider_service().model("openai/gpt-fake")._client is sdk
        assert sdk.is_closed()
    assert result["structuredContent"]["content"] == "served"


def conditions_of(beans: dict[str, dict[str, object]], name: str) -> list[str]:
    return [f"{c['condition']} {c['matched']}: {c['reason']}" for c in beans[name]["conditions"]]  # type: ignore[attr-defined]


def test_mesh_beans_all_shows_the_vendor_clients_with_their_conditions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    done = run_cli_in_process(["beans", APP, "--all", "--json"], monkeypatch)
    assert done.returncode == 0, done.stderr
    beans = {b["name"]: b for b in json.loads(done.stdout)["beans"]}
    assert beans["openai_client"]["defined"] is True
    assert beans["openai_client"]["type"] == "mesh_framework.llm.vendor_clients.VendorClient"
    assert conditions_of(beans, "openai_client")[1:] == [
        "@conditional_on_class('openai') True: openai importable",
        "@conditional_on_missing_bean(openai.AsyncOpenAI) True: no bean of type openai.AsyncOpenAI",
    ]
    own = run_cli_in_process(["beans", APP, "--all", "--json"], monkeypatch, {"MESH_CLIENTS__MODE": "own"})
    assert own.returncode == 0, own.stderr
    beans = {b["name"]: b for b in json.loads(own.stdout)["beans"]}
    assert beans["openai_client"]["defined"] is False and beans["team_openai"]["defined"] is True
    assert conditions_of(beans, "openai_client")[-1] == (
        "@conditional_on_missing_bean(openai.AsyncOpenAI) False: found bean 'team_openai' of type "
        "openai.AsyncOpenAI"
    )
    assert conditions_of(beans, "anthropic_client")[-1].startswith(
        "@conditional_on_missing_bean(anthropic.AsyncAnthropic) False: found bean 'team_anthropic'"
    )


def test_a_missing_bean_named_by_its_dotted_name_imports_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "vendor_sdk_for_conditions.py").write_text("class Client:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    condition = OnMissingBean(("vendor_sdk_for_conditions.Client",))
    context = ConditionContext(settings=None, profiles=[], assignable=is_assignable, defined=[("clock", int)])
    outcome = condition.evaluate(context, None)
    assert outcome.matched and outcome.reason == "no bean of type vendor_sdk_for_conditions.Client"
    assert "vendor_sdk_for_conditions" not in sys.modules  # checking did not import it
    import vendor_sdk_for_conditions  # type: ignore[import-not-found]

    class Azure(vendor_sdk_for_conditions.Client):  # type: ignore[misc]
        pass

    context.defined.append(("azure", Azure))
    outcome = condition.evaluate(context, None)
    assert not outcome.matched
    assert outcome.reason == "found bean 'azure' of type vendor_sdk_for_conditions.Client"
    monkeypatch.delitem(sys.modules, "vendor_sdk_for_conditions")
    with pytest.raises(TypeError, match="dotted class names"):
        conditional_on_missing_bean("Client")
