"""Vendor adapters through the official SDKs, against fake vendor APIs on loopback (tests/llm_fakes)."""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import Iterator
from contextlib import aclosing, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pydantic import SecretStr

from mesh_framework.config.settings import LlmVendorSettings
from mesh_framework.llm.model import LlmError, LlmProviderError
from mesh_framework.llm.types import LlmTurn, Message, tool_spec
from mesh_framework.llm.vendors import KNOWN_VENDORS, create_model
from mesh_framework.mesh.asyncio_network import AsyncioStream
from tests.llm_fakes import (
    FakeLlmServer,
    Received,
    delayed,
    fake_anthropic,
    fake_openai,
    http_error,
    json_answer,
    parallel,
    text,
    tool_call,
)

if TYPE_CHECKING:  # the vendor SDKs (slow to import) are imported by the tests using them
    from mesh_framework.llm.vendors.anthropic import AnthropicModel
    from mesh_framework.llm.vendors.openai import OpenAIChatModel

KEY = "sk-test-0123456789abcdef"
ADD = tool_spec(
    "add",
    "Adds two numbers",
    {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
)
MUL = tool_spec("mul", "Multiplies", {"type": "object", "properties": {"x": {"type": "number"}}})
ASK = [{"role": "user", "content": "What is 1 + 2?"}]
VENDORS = ["openai", "anthropic"]


@contextmanager
def fake(vendor: str, script: list[Any]) -> Iterator[FakeLlmServer]:
    with (fake_openai if vendor == "openai" else fake_anthropic)(script) as server:
        yield server


def model_for(vendor: str, server: FakeLlmServer | str, **options: Any) -> OpenAIChatModel | AnthropicModel:
    base_url = server if isinstance(server, str) else server.base_url
    options = {"api_key": KEY, "max_retries": 0, **options}
    if vendor == "openai":
        from mesh_framework.llm.vendors.openai import OpenAIChatModel

        return OpenAIChatModel("gpt-4o-mini", base_url=base_url, **options)
    from mesh_framework.llm.vendors.anthropic import AnthropicModel

    return AnthropicModel("claude-sonnet-4-6", base_url=base_url, **options)


# --- OpenAI -------------------------------------------------------------------------------------------


async def test_openai_final_answer_with_usage() -> None:
    with fake_openai([text("It is 3.", input_tokens=12, output_tokens=4)]) as server:
        async with aclosing(model_for("openai", server)) as model:
            turn = await model.complete(ASK, params={"temperature": 0.2, "max_tokens": None})
    assert turn == LlmTurn(
        content="It is 3.", model="gpt-4o-mini", input_tokens=12, output_tokens=4, stop_reason="stop"
    )
    (received,) = server.received
    assert received.path == "/v1/chat/completions"
    assert received.api_key == KEY
    assert received.body == {"model": "gpt-4o-mini", "messages": ASK, "temperature": 0.2}


async def test_openai_tool_call_offers_tools_and_parses_arguments() -> None:
    with fake_openai([tool_call("add", {"a": 1, "b": 2}, id="call_1")]) as server:
        async with aclosing(model_for("openai", server)) as model:
            turn = await model.complete(ASK, tools=[ADD], parallel_tool_calls=False)
    (call,) = turn.tool_calls
    assert (call.id, call.name, call.arguments, call.raw_arguments) == (
        "call_1",
        "add",
        {"a": 1, "b": 2},
        '{"a": 1, "b": 2}',
    )
    assert turn.stop_reason == "tool_calls"
    assert server.requests[0]["tools"] == [ADD]
    assert server.requests[0]["parallel_tool_calls"] is False


async def test_openai_parallel_tool_calls() -> None:
    script = [parallel(tool_call("add", {"a": 1, "b": 2}), tool_call("mul", {"x": 3}))]
    with fake_openai(script) as server:
        async with aclosing(model_for("openai", server)) as model:
            turn = await model.complete(ASK, tools=[ADD, MUL])
    assert [(c.name, c.arguments) for c in turn.tool_calls] == [("add", {"a": 1, "b": 2}), ("mul", {"x": 3})]
    assert len({c.id for c in turn.tool_calls}) == 2
    assert "parallel_tool_calls" not in server.requests[0]


async def test_openai_malformed_arguments_are_none_with_the_raw_text_kept() -> None:
    with fake_openai([tool_call("add", '{"a": 1,')]) as server:
        async with aclosing(model_for("openai", server)) as model:
            turn = await model.complete(ASK, tools=[ADD])
    (call,) = turn.tool_calls
    assert call.arguments is None
    assert call.raw_arguments == '{"a": 1,'


async def test_openai_sends_the_transcript_as_is() -> None:
    transcript: list[Message] = [
        {"role": "system", "content": "Be brief."},
        *ASK,
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "3"},
    ]  # fmt: skip
    with fake_openai([text("3")]) as server:
        async with aclosing(model_for("openai", server)) as model:
            await model.complete(transcript, tools=[ADD])
    assert server.requests[0]["messages"] == transcript


async def test_openai_requests_equal_the_sdk_create_requests() -> None:
    """The adapter posts with `client.post` (skipping `create`'s transform) on the SDK versions it was tested
    with: the request must be the one `chat.completions.create` sends, and the fallback (`create`, used on
    other SDK versions) must send it too. Fails when an SDK release makes `create` send something more."""
    from mesh_framework.llm.vendors.openai import response_format

    transcript: list[Message] = [{"role": "system", "content": "Be brief."}, *ASK]
    schema = {"title": "Sum", "type": "object", "properties": {"sum": {"type": "integer"}}}
    with fake_openai([text("3"), text("3"), text("3")]) as server:
        async with aclosing(model_for("openai", server)) as model:
            assert model.direct_post  # the installed SDK is a tested one (pyproject pins it)
            options = {"tools": [ADD], "params": {"temperature": 0.2, "seed": 7}, "response_schema": schema}
            direct = await model.complete(transcript, parallel_tool_calls=False, **options)  # type: ignore[arg-type]
            model.direct_post = False
            fallback = await model.complete(transcript, parallel_tool_calls=False, **options)  # type: ignore[arg-type]
            sdk: Any = model._client
            await sdk.chat.completions.create(
                model="gpt-4o-mini", messages=transcript, tools=[ADD], parallel_tool_calls=False,
                temperature=0.2, seed=7, response_format=response_format(schema),
            )  # fmt: skip
    assert direct == fallback
    ours, theirs_fallback, theirs = server.received
    assert ours.path == theirs.path == theirs_fallback.path == "/v1/chat/completions"
    assert ours.body == theirs.body == theirs_fallback.body
    assert ours.headers == theirs.headers == theirs_fallback.headers


async def test_openai_structured_output_request() -> None:
    strict = {
        "title": "City weather",
        "type": "object",
        "properties": {"city": {"type": "string"}, "temp": {"type": ["number", "null"]}},
        "required": ["city", "temp"],
        "additionalProperties": False,
    }
    loose = {"type": "object", "properties": {"city": {"type": "string"}}}
    with fake_openai([json_answer({"city": "Oslo", "temp": 3}), json_answer({"city": "Oslo"})]) as server:
        async with aclosing(model_for("openai", server)) as model:
            first = await model.complete(ASK, response_schema=strict)
            await model.complete(ASK, response_schema=loose)
    assert json.loads(first.content or "") == {"city": "Oslo", "temp": 3}
    assert server.requests[0]["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "City_weather", "schema": strict, "strict": True},
    }
    assert server.requests[1]["response_format"]["json_schema"] == {
        "name": "answer",
        "schema": loose,
        "strict": False,
    }


CLOSED = {"type": "object", "properties": {}, "additionalProperties": False}
OPTIONAL_A = {
    "type": "object",
    "properties": {"a": {"type": "string"}},
    "required": [],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("schema", "strict"),
    [
        ({"type": "string"}, True),
        (CLOSED, True),
        (OPTIONAL_A, False),
        ({"type": "array", "items": {"type": "object", "properties": {"a": {}}, "required": ["a"]}}, False),
        ({"$defs": {"P": {"type": "object", "properties": {}}}, "$ref": "#/$defs/P"}, False),
        ({"anyOf": [CLOSED, {"type": "null"}]}, True),
    ],
)
def test_strict_only_for_closed_schemas_with_every_property_required(
    schema: dict[str, Any], strict: bool
) -> None:
    from mesh_framework.llm.vendors.openai import is_strict_schema, response_format

    assert is_strict_schema(schema) is strict
    assert response_format(schema)["json_schema"]["strict"] is strict


async def test_openai_base_url_without_key_sends_a_placeholder(monkeypatch: pytest.MonkeyPatch) -> None:
    from mesh_framework.llm.vendors.openai import OpenAIChatModel

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_ADMIN_KEY", raising=False)
    with fake_openai([text("hi")]) as server:
        async with aclosing(OpenAIChatModel("llama3.2", base_url=server.base_url)) as model:
            assert (await model.complete(ASK)).content == "hi"
    assert server.received[0].api_key == "unused"


async def test_a_given_client_is_used_and_left_open() -> None:
    import openai

    from mesh_framework.llm.vendors.openai import OpenAIChatModel

    with fake_openai([text("hi")]) as server:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key=KEY, max_retries=0, timeout=3)
        model = OpenAIChatModel("gpt-4o-mini", client=client)
        assert (model.base_url, model.max_retries, model.timeout) == (server.base_url, 0, 3)
        assert (await model.complete(ASK)).content == "hi"
        await model.aclose()
        assert not client.is_closed()
        await client.close()


def test_openai_without_any_key_fails_at_creation(monkeypatch: pytest.MonkeyPatch) -> None:
    from mesh_framework.llm.vendors.openai import OpenAIChatModel

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_ADMIN_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(LlmError, match=r"openai/gpt-4o: no API key\. Set llm\.vendors\.openai\.api_key"):
        OpenAIChatModel("gpt-4o")


# --- Anthropic ----------------------------------------------------------------------------------------


async def test_anthropic_final_answer_with_usage() -> None:
    with fake_anthropic([text("It is 3.", input_tokens=20, output_tokens=5)]) as server:
        async with aclosing(model_for("anthropic", server)) as model:
            turn = await model.complete(ASK, params={"temperature": 0.5})
    assert turn == LlmTurn(
        content="It is 3.",
        model="claude-sonnet-4-6",
        input_tokens=20,
        output_tokens=5,
        stop_reason="end_turn",
    )
    (received,) = server.received
    assert (received.path, received.api_key, received.headers["anthropic-version"] > "") == (
        "/v1/messages",
        KEY,
        True,
    )
    assert received.body == {
        "model": "claude-sonnet-4-6",
        "max_tokens": 4096,
        "messages": ASK,
        "temperature": 0.5,
    }


async def test_anthropic_tool_calls_and_tools_and_parallel_switch() -> None:
    script = [
        parallel(tool_call("add", {"a": 1, "b": 2}), tool_call("mul", {"x": 3})),
        tool_call("add", {"a": 5}),
    ]
    with fake_anthropic(script) as server:
        async with aclosing(model_for("anthropic", server)) as model:
            both = await model.complete(ASK, tools=[ADD, MUL], params={"max_tokens": 100, "stop": "END"})
            one = await model.complete(ASK, tools=[ADD], parallel_tool_calls=False)
    assert [(c.name, c.arguments) for c in both.tool_calls] == [("add", {"a": 1, "b": 2}), ("mul", {"x": 3})]
    assert both.tool_calls[0].raw_arguments == '{"a": 1, "b": 2}'
    assert (both.stop_reason, one.tool_calls[0].arguments) == ("tool_use", {"a": 5})
    first, second = server.requests
    assert first["tools"] == [
        {"name": "add", "description": "Adds two numbers", "input_schema": ADD["function"]["parameters"]},
        {"name": "mul", "description": "Multiplies", "input_schema": MUL["function"]["parameters"]},
    ]
    assert (first["max_tokens"], first["stop_sequences"]) == (100, ["END"])
    assert "tool_choice" not in first
    assert second["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}


async def test_anthropic_malformed_input_is_none_with_the_raw_text_kept() -> None:
    with fake_anthropic([tool_call("add", "{oops")]) as server:
        async with aclosing(model_for("anthropic", server)) as model:
            turn = await model.complete(ASK, tools=[ADD])
    assert (turn.tool_calls[0].arguments, turn.tool_calls[0].raw_arguments) == (None, "{oops")


async def test_anthropic_transcript_conversion() -> None:
    transcript: list[Message] = [
        {"role": "system", "content": "You add numbers."},
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "What are 1 + 2 and 3 + 4?"},
        {
            "role": "assistant",
            "content": "Let me add.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "add", "arguments": '{"a": 3, "b": 4}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "3"},
        {"role": "tool", "tool_call_id": "c2", "content": "7"},
    ]
    with fake_anthropic([text("3 and 7")]) as server:
        async with aclosing(model_for("anthropic", server)) as model:
            await model.complete(transcript, tools=[ADD], params={"max_completion_tokens": 256})
    assert server.requests[0] == {
        "model": "claude-sonnet-4-6",
        "max_tokens": 256,
        "system": "You add numbers.\n\nBe brief.",
        "messages": [
            {"role": "user", "content": "What are 1 + 2 and 3 + 4?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Let me add."},
                    {"type": "tool_use", "id": "c1", "name": "add", "input": {"a": 1, "b": 2}},
                    {"type": "tool_use", "id": "c2", "name": "add", "input": {"a": 3, "b": 4}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "c1", "content": "3"},
                    {"type": "tool_result", "tool_use_id": "c2", "content": "7"},
                ],
            },
        ],
        "tools": [
            {"name": "add", "description": "Adds two numbers", "input_schema": ADD["function"]["parameters"]}
        ],
    }


async def test_anthropic_transcript_edge_cases() -> None:
    transcript: list[Message] = [
        {"role": "user", "content": [{"type": "text", "text": "Look:"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]},
        {"role": "assistant", "content": ""},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
            "function": {"name": "add", "arguments": "not json"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "bad arguments"},
        {"role": "user", "content": "Try again."},
    ]  # fmt: skip
    with fake_anthropic([text("ok")]) as server:
        async with aclosing(model_for("anthropic", server)) as model:
            await model.complete(transcript)
    assert server.requests[0]["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Look:"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "add", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "bad arguments"},
            {"type": "text", "text": "Try again."}]},
    ]  # fmt: skip
    assert "system" not in server.requests[0]


async def test_anthropic_structured_output_request() -> None:
    import anthropic

    schema = {
        "type": "object",
        "properties": {"city": {"type": "string", "minLength": 2}},
        "required": ["city"],
    }
    with fake_anthropic([json_answer({"city": "Oslo"})]) as server:
        async with aclosing(model_for("anthropic", server)) as model:
            turn = await model.complete(
                ASK, response_schema=schema, params={"output_config": {"effort": "low"}}
            )
    assert json.loads(turn.content or "") == {"city": "Oslo"}
    output_config = server.requests[0]["output_config"]
    assert output_config == {
        "effort": "low",
        "format": {"type": "json_schema", "schema": anthropic.transform_schema(schema)},
    }
    assert output_config["format"]["schema"]["additionalProperties"] is False


def test_anthropic_without_any_key_fails_at_creation(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from mesh_framework.llm.vendors.anthropic import AnthropicModel

    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE", "ANTHROPIC_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    with pytest.raises(
        LlmError, match=r"anthropic/claude-x: no API key\. Set llm\.vendors\.anthropic\.api_key"
    ):
        AnthropicModel("claude-x")
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(tmp_path))  # a profile the user asked for, but broken
    with pytest.raises(LlmError, match=r"anthropic/claude-x: Config file not found at"):
        AnthropicModel("claude-x")


# --- Both: retries and errors -------------------------------------------------------------------------


@pytest.mark.parametrize("vendor", VENDORS)
async def test_rate_limited_once_then_answered_by_the_sdk_retry(vendor: str) -> None:
    with fake(vendor, [http_error(429, "slow down"), text("done")]) as server:
        async with aclosing(model_for(vendor, server, max_retries=2)) as model:
            turn = await model.complete(ASK)
    assert turn.content == "done"
    assert len(server.requests) == 2


@pytest.mark.parametrize("vendor", VENDORS)
async def test_rate_limited_after_retries_is_a_provider_error(vendor: str) -> None:
    with fake(vendor, [http_error(429, "slow down")] * 2) as server:
        async with aclosing(model_for(vendor, server, max_retries=1)) as model:
            with pytest.raises(LlmProviderError) as caught:
                await model.complete(ASK)
    assert str(caught.value) == (
        f"{vendor} model '{model.model}' at {server.base_url}: HTTP 429 (1 retry): slow down"
    )


@pytest.mark.parametrize("vendor", VENDORS)
async def test_timeout_is_a_provider_error_naming_vendor_model_and_url(vendor: str) -> None:
    with fake(vendor, [delayed(5.0)]) as server:
        async with aclosing(model_for(vendor, server, timeout=0.2)) as model:
            with pytest.raises(LlmProviderError) as caught:
                await model.complete(ASK)
    message = str(caught.value)
    assert message.startswith(f"{vendor} model '")
    assert message.endswith(f"at {server.base_url}: timed out after 0.2 s")
    assert "\n" not in message


@pytest.mark.parametrize("vendor", VENDORS)
async def test_unauthorized_never_shows_the_key(vendor: str) -> None:
    def reject(request: Received) -> Any:
        return http_error(401, f"Incorrect API key provided: {request.api_key}")

    with fake(vendor, [reject]) as server:
        async with aclosing(model_for(vendor, server)) as model:
            with pytest.raises(LlmProviderError) as caught:
                await model.complete(ASK)
            assert KEY not in repr(model)
    message = str(caught.value)
    assert "HTTP 401: Incorrect API key provided: *** (check the API key)" in message
    assert KEY not in message
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


@pytest.mark.parametrize("vendor", VENDORS)
async def test_connection_refused_is_a_provider_error(vendor: str) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    async with aclosing(model_for(vendor, url)) as model:
        with pytest.raises(LlmProviderError, match=rf"^{vendor} model '.+' at {url}: cannot connect"):
            await model.complete(ASK)


@pytest.mark.parametrize("vendor", VENDORS)
async def test_a_request_past_the_script_is_answered_400_naming_it(vendor: str) -> None:
    with fake(vendor, []) as server:
        async with aclosing(model_for(vendor, server, max_retries=2)) as model:
            with pytest.raises(
                LlmProviderError, match="HTTP 400: fake .* server: no scripted turn left for request 1"
            ):
                await model.complete(ASK)
    assert len(server.requests) == 1


@pytest.mark.parametrize("vendor", VENDORS)
async def test_the_sdk_clients_we_create_run_on_the_asyncio_network_layer(vendor: str) -> None:
    """Our adapters hand the SDK its own default client class on `mesh/asyncio_network.py`."""
    import anthropic
    import openai

    with fake(vendor, [text("one"), text("two")]) as server:
        async with aclosing(model_for(vendor, server)) as model:
            sdk: Any = model._client
            if vendor == "openai":
                raw = await sdk.chat.completions.with_raw_response.create(model="gpt-4o-mini", messages=ASK)
            else:
                raw = await sdk.messages.with_raw_response.create(
                    model="claude-sonnet-4-6", max_tokens=16, messages=ASK
                )
            assert isinstance(raw.http_response.extensions["network_stream"], AsyncioStream)
            assert (await model.complete(ASK)).content == "two"  # the adapter's own request, same client
        assert isinstance(sdk._client, (openai.DefaultAsyncHttpxClient, anthropic.DefaultAsyncHttpxClient))


# --- create_model -------------------------------------------------------------------------------------


async def test_create_model_from_settings_talks_to_the_configured_server() -> None:
    from mesh_framework.llm.vendors.openai import OpenAIChatModel

    with fake_openai([text("hi")]) as server:
        settings = LlmVendorSettings(
            base_url=server.base_url, api_key=SecretStr(KEY), timeout=5, max_retries=0
        )
        async with aclosing(create_model("openai/meta-llama/Llama-3.1-8B", settings)) as model:
            assert isinstance(model, OpenAIChatModel)
            assert (model.name, model.model, model.timeout) == (
                "openai/meta-llama/Llama-3.1-8B",
                "meta-llama/Llama-3.1-8B",
                5,
            )
            await model.complete(ASK)
    assert server.requests[0]["model"] == "meta-llama/Llama-3.1-8B"
    assert server.received[0].api_key == KEY


async def test_create_model_anthropic() -> None:
    from mesh_framework.llm.vendors.anthropic import AnthropicModel

    settings = LlmVendorSettings(base_url="http://127.0.0.1:9", api_key=SecretStr(KEY))
    async with aclosing(create_model("anthropic/claude-sonnet-4-6", settings)) as model:
        assert isinstance(model, AnthropicModel)
        assert repr(model) == "AnthropicModel(model='claude-sonnet-4-6', base_url='http://127.0.0.1:9')"
    assert set(KNOWN_VENDORS) == {"openai", "anthropic"}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "gemini/gemini-2.0",
            r"Unknown LLM vendor 'gemini' in 'gemini/gemini-2.0'\. Known vendors: anthropic, openai\.",
        ),
        ("gpt-4o", r"LLM provider 'gpt-4o' is not 'vendor/model' \(e\.g\. 'openai/gpt-4o-mini'\)"),
        ("openai/", r"is not 'vendor/model'"),
    ],
)
def test_create_model_rejects_unknown_vendors_and_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(LlmError, match=message):
        create_model(spec)


@pytest.mark.parametrize("vendor", VENDORS)
def test_create_model_without_the_extra_says_what_to_install(
    vendor: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, vendor, None)
    with pytest.raises(LlmError, match=rf"needs the {vendor} SDK: pip install 'mesh-framework\[{vendor}\]'"):
        create_model(f"{vendor}/some-model", LlmVendorSettings(api_key=SecretStr(KEY)))
