"""The vendor SDKs' own environment variables are honoured as the SDKs read them: `OPENAI_BASE_URL` alone
reaches a local OpenAI-compatible server that needs no key, `ANTHROPIC_BASE_URL` likewise, and the
settings (`llm.vendors.*`) win over them. One INFO line names the variables read, never a key's value.
The official SDKs talk to the fake vendor servers of tests/llm_fakes."""

from __future__ import annotations

import logging
from contextlib import aclosing

import pytest

from mesh_framework.config.settings import LlmVendorSettings
from mesh_framework.llm.vendors import create_model
from tests.agents import loopback, run_agent
from tests.llm_fakes import fake_anthropic, fake_openai, text

KEY = "sk-env-0123456789abcdef"
ASK = [{"role": "user", "content": "Hello?"}]
SDK_VARIABLES = (
    "OPENAI_API_KEY",
    "OPENAI_ADMIN_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in SDK_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def read_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "from the environment" in r.getMessage()]


async def test_openai_base_url_alone_reaches_a_server_that_needs_no_key(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="mesh_framework.llm")
    with fake_openai([text("hi")]) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        async with aclosing(create_model("openai/llama3.2", LlmVendorSettings(max_retries=0))) as model:
            assert (await model.complete(ASK)).content == "hi"
    assert server.received[0].api_key == "unused"  # a placeholder: the SDK insists on some key
    assert read_lines(caplog) == [
        "openai/llama3.2: the openai SDK reads OPENAI_BASE_URL from the environment"
    ]


@pytest.mark.parametrize("vendor", ["openai", "anthropic"])
async def test_the_sdk_s_base_url_and_key_variables_are_read_and_named_not_shown(
    vendor: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="mesh_framework.llm")
    prefix = vendor.upper()
    with (fake_openai if vendor == "openai" else fake_anthropic)([text("hi")]) as server:
        monkeypatch.setenv(f"{prefix}_BASE_URL", server.base_url)
        monkeypatch.setenv(f"{prefix}_API_KEY", KEY)
        async with aclosing(create_model(f"{vendor}/m1", LlmVendorSettings(max_retries=0))) as model:
            assert (await model.complete(ASK)).content == "hi"
    assert server.received[0].api_key == KEY
    assert read_lines(caplog) == [
        f"{vendor}/m1: the {vendor} SDK reads {prefix}_BASE_URL, {prefix}_API_KEY from the environment"
    ]
    assert KEY not in caplog.text


async def test_settings_win_over_the_sdk_s_variables(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="mesh_framework.llm")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens there
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-this-one")
    with fake_openai([text("hi")]) as server:
        settings = LlmVendorSettings(base_url=server.base_url, api_key=KEY, max_retries=0)
        async with aclosing(create_model("openai/m2", settings)) as model:
            assert (await model.complete(ASK)).content == "hi"
    assert server.received[0].api_key == KEY
    assert read_lines(caplog) == []  # the settings gave both: the SDK reads neither


def test_an_agent_s_llm_route_reaches_the_server_named_by_openai_base_url() -> None:
    with fake_openai([text("Paris")]) as model:
        env = {"OPENAI_BASE_URL": model.base_url, "OPENAI_API_KEY": "", "OPENAI_ADMIN_KEY": ""}
        with run_agent("tests.apps.routes_llm_app", env=env) as asker:
            answer = loopback.post(
                asker.base_url + "/api/ask-direct", params={"question": "Capital of France?"}, timeout=30
            )
            assert answer.status_code == 200, answer.text
            assert answer.json() == {"answer": "Paris"}
            log = asker.text()
    # the agent's client bean, made from llm.vendors.openai, reads it: the line names the settings to set
    assert "llm.vendors.openai: the openai SDK reads OPENAI_BASE_URL from the environment" in log
    assert model.received[0].api_key == "unused"
