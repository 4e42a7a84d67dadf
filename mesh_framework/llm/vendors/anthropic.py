"""`AnthropicModel`: Claude through the official `anthropic` SDK's Messages API; `new_client` makes the
`anthropic.AsyncAnthropic` it talks through (the agent's client bean: llm/vendor_clients.py)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncGenerator, Mapping, Sequence
from types import ModuleType
from typing import Any, ClassVar

import anthropic
from anthropic.types import Message as AnthropicMessage
from pydantic import SecretStr

from ..model import LlmError
from ..types import LlmToolCall, LlmTurn, Message
from ._anthropic_stream import anthropic_deltas
from ._anthropic_transcript import anthropic_tools, anthropic_transcript
from ._common import (
    VendorModel,
    api_key_of,
    sdk_http_client,
    without_none,
)

__all__ = ["DEFAULT_MAX_TOKENS", "AnthropicModel", "new_client"]

DEFAULT_MAX_TOKENS = 4096
"""`max_tokens` when `params` has neither `max_tokens` nor `max_completion_tokens` (the API needs one)."""

_ENV = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
_BASE_URL_ENV = "ANTHROPIC_BASE_URL"


def new_client(
    base_url: str | None, api_key: str | SecretStr | None, timeout: float, max_retries: int
) -> anthropic.AsyncAnthropic:
    """An `AsyncAnthropic` on our network layer; the SDK reads ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY (or
    its other credentials) for what is not given. LlmError (saying where to set a key) when it cannot be
    made."""
    try:
        client = anthropic.AsyncAnthropic(
            base_url=base_url,
            api_key=api_key_of(api_key, base_url, _ENV, _BASE_URL_ENV),
            timeout=timeout,
            max_retries=max_retries,
            http_client=sdk_http_client(anthropic.DefaultAsyncHttpxClient),
        )
    except anthropic.AnthropicError as error:  # a broken credentials profile
        raise LlmError(" ".join(str(error).split())) from None
    if client.api_key is None and client.auth_token is None and client.credentials is None:
        raise LlmError(
            "no API key. Set llm.vendors.anthropic.api_key (MESH_LLM__VENDORS__ANTHROPIC__API_KEY) or "
            "ANTHROPIC_API_KEY."
        )
    return client


class AnthropicModel(VendorModel[anthropic.AsyncAnthropic]):
    """One Claude model of the Messages API; transcripts and tools arrive in OpenAI's chat format.

        model = AnthropicModel("claude-sonnet-4-5")  # key from ANTHROPIC_API_KEY
        turn = await model.complete([{"role": "user", "content": "Hi"}], params={"max_tokens": 1024})

    A `response_schema` uses the API's structured outputs (`output_config.format`, a `json_schema`
    adapted by the SDK's `transform_schema`); the answer is the JSON text of the turn. `params` go into
    the body as they are, except `max_tokens`/`max_completion_tokens` and `stop` (as `stop_sequences`).
    """

    vendor = "anthropic"
    key_env = _ENV
    base_url_env = _BASE_URL_ENV
    sdk: ClassVar[ModuleType] = anthropic  # its APITimeoutError, APIConnectionError, APIStatusError
    sdk_error = anthropic.AnthropicError
    _sdk_client = staticmethod(new_client)

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] = (),
        params: Mapping[str, Any] | None = None,
        response_schema: Mapping[str, Any] | None = None,
        parallel_tool_calls: bool | None = None,
    ) -> LlmTurn:
        request, extra = self._request(messages, tools, params, response_schema, parallel_tool_calls)
        try:
            answer: AnthropicMessage = await self._client.messages.create(**request, extra_body=extra or None)
        except anthropic.AnthropicError as error:
            raise self._provider_error(error) from None
        texts: list[str] = []
        calls: list[LlmToolCall] = []
        for block in answer.content:
            if block.type == "text":
                texts.append(block.text)
            elif block.type == "tool_use":
                arguments = block.input if isinstance(block.input, Mapping) else None
                raw = json.dumps(block.input) if arguments is not None else str(block.input)
                calls.append(
                    LlmToolCall(id=block.id, name=block.name, arguments=arguments, raw_arguments=raw)
                )
        return LlmTurn(
            content="".join(texts) if texts else None,
            tool_calls=tuple(calls),
            model=answer.model or self.model,
            input_tokens=answer.usage.input_tokens,
            output_tokens=answer.usage.output_tokens,
            stop_reason=answer.stop_reason,
        )

    async def stream(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[Mapping[str, Any]] = (),
        params: Mapping[str, Any] | None = None,
        response_schema: Mapping[str, Any] | None = None,
        parallel_tool_calls: bool | None = None,
    ) -> AsyncGenerator[str | LlmTurn]:
        """`messages.create(stream=True)`; see `LlmModel.stream`."""
        request, extra = self._request(messages, tools, params, response_schema, parallel_tool_calls)
        try:
            events = await self._client.messages.create(**request, stream=True, extra_body=extra or None)
        except anthropic.AnthropicError as error:
            raise self._provider_error(error) from None
        async with contextlib.aclosing(self._relay(events, anthropic_deltas(events, self.model))) as deltas:
            async for delta in deltas:
                yield delta

    def _request(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]],
        params: Mapping[str, Any] | None,
        response_schema: Mapping[str, Any] | None,
        parallel_tool_calls: bool | None,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The Messages API request and the parameters that go into its body as they are."""
        extra = without_none(params)
        max_tokens = extra.pop("max_tokens", None) or extra.pop("max_completion_tokens", DEFAULT_MAX_TOKENS)
        extra.pop("max_completion_tokens", None)
        if "stop" in extra:
            stop = extra.pop("stop")
            extra["stop_sequences"] = [stop] if isinstance(stop, str) else list(stop)
        system, turns = anthropic_transcript(messages)
        request: dict[str, Any] = {"model": self.model, "max_tokens": int(max_tokens), "messages": turns}
        if system is not None:
            request["system"] = system
        if tools:
            request["tools"] = anthropic_tools(tools)
            if parallel_tool_calls is False:
                request["tool_choice"] = {"type": "auto", "disable_parallel_tool_use": True}
        if response_schema is not None:
            output_format = {
                "type": "json_schema",
                "schema": anthropic.transform_schema(dict(response_schema)),
            }
            request["output_config"] = {**extra.pop("output_config", {}), "format": output_format}
        return request, extra
