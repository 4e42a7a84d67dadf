"""Vendor adapters streaming through the official SDKs (`stream=True`), against fake vendor APIs that send
the vendors' event streams on loopback (tests/llm_fakes)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import aclosing, contextmanager
from typing import TYPE_CHECKING, Any

import pytest

from mesh_framework.llm.model import LlmModel, LlmProviderError
from mesh_framework.llm.types import LlmToolCall, LlmTurn, tool_spec
from tests.llm_fakes import FakeLlmServer, Turn, fake_anthropic, fake_openai, streamed, tool_call

if TYPE_CHECKING:  # the vendor SDKs (slow to import) are imported by the tests using them
    from mesh_framework.llm.vendors.anthropic import AnthropicModel
    from mesh_framework.llm.vendors.openai import OpenAIChatModel

KEY = "sk-test-0123456789abcdef"
ADD = tool_spec("add", "Adds", {"type": "object", "properties": {"a": {"type": "integer"}}})
ASK = [{"role": "user", "content": "Say hello"}]
VENDORS = ["openai", "anthropic"]


@contextmanager
def fake(vendor: str, script: list[Any]) -> Iterator[FakeLlmServer]:
    with (fake_openai if vendor == "openai" else fake_anthropic)(script) as server:
        yield server


def model_for(vendor: str, server: FakeLlmServer) -> OpenAIChatModel | AnthropicModel:
    if vendor == "openai":
        from mesh_framework.llm.vendors.openai import OpenAIChatModel

        return OpenAIChatModel("gpt-4o-mini", base_url=server.base_url, api_key=KEY, max_retries=0)
    from mesh_framework.llm.vendors.anthropic import AnthropicModel

    return AnthropicModel("claude-sonnet-4-6", base_url=server.base_url, api_key=KEY, max_retries=0)


async def collect(model: OpenAIChatModel | AnthropicModel, **options: Any) -> list[str | LlmTurn]:
    return [event async for event in model.stream(ASK, **options)]


@pytest.mark.parametrize("vendor", VENDORS)
async def test_one_item_per_vendor_delta_then_the_turn(vendor: str) -> None:
    deltas = ("Hel", "lo", ", ", "wor", "ld", "!")
    with fake(vendor, [streamed(*deltas, input_tokens=9, output_tokens=6)]) as server:
        async with aclosing(model_for(vendor, server)) as model:
            events = await collect(model, params={"temperature": 0})
    *texts, turn = events
    assert texts == list(deltas)  # neither merged nor split
    assert isinstance(turn, LlmTurn)
    assert (turn.content, turn.tool_calls, turn.input_tokens, turn.output_tokens) == (
        "Hello, world!",
        (),
        9,
        6,
    )
    assert turn.stop_reason == ("stop" if vendor == "openai" else "end_turn")
    body = server.requests[0]
    assert body["stream"] is True and body["temperature"] == 0
    if vendor == "openai":
        assert body["stream_options"] == {"include_usage": True}


@pytest.mark.parametrize("vendor", VENDORS)
async def test_tool_calls_are_assembled_from_their_pieces(vendor: str) -> None:
    arguments = {"a": 1, "b": 22, "note": "a long argument split over chunks"}
    turn_script = Turn(calls=tool_call("add", arguments, id="c1").calls + tool_call("add", {"a": 3}).calls)
    with fake(vendor, [turn_script]) as server:
        async with aclosing(model_for(vendor, server)) as model:
            events = await collect(model, tools=[ADD])
    assert len(events) == 1  # no text: the turn only
    (turn,) = events
    assert isinstance(turn, LlmTurn)
    assert [(c.id, c.name, c.arguments) for c in turn.tool_calls] == [
        ("c1", "add", arguments),
        (turn.tool_calls[1].id, "add", {"a": 3}),
    ]
    assert turn.tool_calls[1].id
    assert server.requests[0]["tools"]


@pytest.mark.parametrize("vendor", VENDORS)
async def test_text_before_a_tool_call_passes_and_is_in_the_turn(vendor: str) -> None:
    script = Turn(text="Let me add.", chunks=("Let me", " add."), calls=tool_call("add", {"a": 1}).calls)
    with fake(vendor, [script]) as server:
        async with aclosing(model_for(vendor, server)) as model:
            *texts, turn = await collect(model, tools=[ADD])
    assert texts == ["Let me", " add."]
    assert isinstance(turn, LlmTurn)
    assert turn.content == "Let me add."
    assert [c.name for c in turn.tool_calls] == ["add"]


@pytest.mark.parametrize("vendor", VENDORS)
@pytest.mark.parametrize("how", ["error", "drop"])
async def test_a_stream_that_breaks_gives_its_chunks_then_an_error(vendor: str, how: str) -> None:
    with fake(vendor, [streamed("one ", "two ", "three", fail_after=2, fail=how)]) as server:
        async with aclosing(model_for(vendor, server)) as model:
            got: list[str | LlmTurn] = []
            with pytest.raises(LlmProviderError) as raised:
                async for event in model.stream(ASK):
                    got.append(event)
    assert got == ["one ", "two "]
    message = str(raised.value)
    assert message.startswith(
        f"{vendor} model '{model.model}' at {server.base_url.rstrip('/')}: the stream broke"
    )
    assert KEY not in message
    if how == "error":
        assert "fake error after 2 chunks" in message


@pytest.mark.parametrize("vendor", VENDORS)
async def test_leaving_early_closes_the_vendor_stream(vendor: str) -> None:
    with fake(vendor, [streamed("first", " second", hold=True)]) as server:
        async with aclosing(model_for(vendor, server)) as model:
            async with aclosing(model.stream(ASK)) as events:
                async for event in events:
                    assert event == "first"
                    break
            # the fake's stream is cancelled when the connection closes
            assert await asyncio.to_thread(server.left_early.wait, 10)


@pytest.mark.parametrize("vendor", VENDORS)
async def test_an_error_status_before_the_stream_is_a_provider_error(vendor: str) -> None:
    with fake(vendor, []) as server:
        async with aclosing(model_for(vendor, server)) as model:
            with pytest.raises(LlmProviderError, match="HTTP 400: fake .* no scripted turn left"):
                await collect(model)


class _Whole(LlmModel):
    """A model with `complete` only: a tool call, then a text answer."""

    def __init__(self) -> None:
        self.turns = [
            LlmTurn(content=None, tool_calls=(LlmToolCall("c1", "add", {"a": 1}),)),
            LlmTurn("Done"),
        ]

    async def complete(self, messages: Any, **options: Any) -> LlmTurn:
        return self.turns.pop(0)


async def test_the_default_stream_of_a_model_gives_a_final_text_once() -> None:
    model = _Whole()
    first = [event async for event in model.stream(ASK)]
    second = [event async for event in model.stream(ASK)]
    assert len(first) == 1 and isinstance(first[0], LlmTurn) and first[0].tool_calls
    assert second == ["Done", LlmTurn("Done")]


async def test_a_scripted_model_streams_scripted_deltas() -> None:
    from mesh_framework.testing import ScriptedLlm

    model = ScriptedLlm([ScriptedLlm.call("add", a=1), ScriptedLlm.deltas("All ", "done"), "Once"])
    first = [event async for event in model.stream(ASK, tools=[ADD])]
    assert len(first) == 1 and isinstance(first[0], LlmTurn)
    assert first[0].tool_calls == (LlmToolCall("call_1", "add", {"a": 1}, '{"a": 1}'),)
    *pieces, turn = [event async for event in model.stream(ASK)]
    assert pieces == ["All ", "done"] and isinstance(turn, LlmTurn) and turn.content == "All done"
    assert (await model.complete(ASK)).content == "Once"


@pytest.mark.parametrize("direct_post", [True, False])
async def test_openai_chunks_are_read_as_json_without_the_sdk_s_chunk_models(
    direct_post: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The direct post reads each chunk as its JSON object (building `ChatCompletionChunk` cost ~0.14 ms a
    chunk); `create` (untested SDK versions) gives models, read the same way. Both give the same events."""
    from openai.types.chat import ChatCompletionChunk

    from mesh_framework.llm.vendors.openai import OpenAIChatModel

    built: list[object] = []
    construct = ChatCompletionChunk.construct

    def counting(*args: Any, **kwargs: Any) -> Any:
        built.append(kwargs)
        return construct(*args, **kwargs)

    monkeypatch.setattr(ChatCompletionChunk, "construct", counting)
    script = [
        streamed("Hel", "lo", input_tokens=4, output_tokens=2),
        Turn(calls=tool_call("add", {"a": 1}).calls),
    ]
    with fake_openai(script) as server:
        async with aclosing(model_for("openai", server)) as model:
            assert isinstance(model, OpenAIChatModel)
            model.direct_post = direct_post
            *texts, turn = await collect(model)
            (call,) = await collect(model, tools=[ADD])
    assert texts == ["Hel", "lo"]
    assert isinstance(turn, LlmTurn) and (turn.content, turn.input_tokens, turn.output_tokens) == (
        "Hello",
        4,
        2,
    )
    assert isinstance(call, LlmTurn) and [(c.name, c.arguments) for c in call.tool_calls] == [
        ("add", {"a": 1})
    ]
    assert (len(built) == 0) is direct_post
