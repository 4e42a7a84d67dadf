"""`OpenAIChatModel`: the Chat Completions API through the official `openai` SDK, for OpenAI and every
OpenAI-compatible server (vLLM, Ollama, LM Studio, LiteLLM's proxy) given its `base_url`; `new_client` makes
the `openai.AsyncOpenAI` it talks through (the agent's client bean: llm/vendor_clients.py)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncGenerator, Mapping, Sequence
from types import ModuleType
from typing import Any, ClassVar, cast

import openai
from openai.types.chat import ChatCompletion, ChatCompletionStreamOptionsParam
from pydantic import SecretStr

from ...tested_versions import is_tested
from ..model import LlmError
from ..types import LlmToolCall, LlmTurn, Message
from ._common import (
    VendorModel,
    api_key_of,
    parse_arguments,
    provider_error,
    sdk_http_client,
    without_none,
)
from ._openai_media import openai_messages
from ._openai_stream import openai_deltas

__all__ = ["OpenAIChatModel", "is_strict_schema", "new_client", "response_format"]

_ENV = ("OPENAI_API_KEY", "OPENAI_ADMIN_KEY")
_BASE_URL_ENV = "OPENAI_BASE_URL"

# `client.post` (the SDK's documented way to reach any endpoint) keeps the SDK's auth, retries, errors and
# response parsing but skips the request transform of `chat.completions.create`, which walks the whole
# transcript against the SDK's types on every turn (~9 ms for 30 messages here, growing with the
# transcript) to give back the same dict. It leans on `create` adding nothing else to the request, which
# tests check for the tested SDK versions; on other versions `create` is used.
_DIRECT_POST = is_tested("openai", openai.__version__)


def new_client(
    base_url: str | None, api_key: str | SecretStr | None, timeout: float, max_retries: int
) -> openai.AsyncOpenAI:
    """An `AsyncOpenAI` on our network layer; the SDK reads OPENAI_BASE_URL and OPENAI_API_KEY for what is
    not given. LlmError (saying where to set a key) when it cannot be made."""
    try:
        return openai.AsyncOpenAI(
            base_url=base_url,
            api_key=api_key_of(api_key, base_url, _ENV, _BASE_URL_ENV),
            timeout=timeout,
            max_retries=max_retries,
            http_client=sdk_http_client(openai.DefaultAsyncHttpxClient),
        )
    except openai.OpenAIError as error:
        hint = (
            "no API key. Set llm.vendors.openai.api_key (MESH_LLM__VENDORS__OPENAI__API_KEY) or "
            "OPENAI_API_KEY, or a base URL (llm.vendors.openai.base_url or OPENAI_BASE_URL) for a "
            "server that needs none."
        )
        raise LlmError(hint if "credentials" in str(error) else str(error)) from None


class OpenAIChatModel(VendorModel[openai.AsyncOpenAI]):
    """One model of an OpenAI-compatible Chat Completions API.

        model = OpenAIChatModel("gpt-4o-mini")  # key from OPENAI_API_KEY
        local = OpenAIChatModel("llama3.2", base_url="http://localhost:11434/v1")
        turn = await model.complete([{"role": "user", "content": "Hi"}])

    `params` go into the request body as they are (`temperature`, `max_tokens`, or `max_completion_tokens`
    for reasoning models, and any parameter a compatible server takes).
    """

    vendor = "openai"
    key_env = _ENV
    base_url_env = _BASE_URL_ENV
    sdk: ClassVar[ModuleType] = openai  # its APITimeoutError, APIConnectionError, APIStatusError
    sdk_error = openai.OpenAIError
    direct_post = _DIRECT_POST
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
        request = self._request(messages, tools, response_schema, parallel_tool_calls)
        extra = without_none(params)
        try:
            completion: ChatCompletion
            if self.direct_post:
                completion = await self._client.post(
                    "/chat/completions", body={**request, **extra}, cast_to=ChatCompletion
                )
            else:
                completion = await self._client.chat.completions.create(**request, extra_body=extra or None)
        except openai.OpenAIError as error:
            raise self._provider_error(error) from None
        if not completion.choices:
            raise provider_error(
                self.vendor, self.model, self.base_url, "answer without choices", secret=None
            )
        choice = completion.choices[0]
        stop_reason: str | None
        message = choice.message
        calls = tuple(
            LlmToolCall(
                id=call.id,
                name=call.function.name,
                arguments=parse_arguments(call.function.arguments),
                raw_arguments=call.function.arguments,
            )
            for call in message.tool_calls or ()
            if call.type == "function"
        )
        content, stop_reason = message.content, choice.finish_reason
        if content is None and message.refusal:
            content, stop_reason = message.refusal, "refusal"
        usage = completion.usage
        return LlmTurn(
            content=content,
            tool_calls=calls,
            model=completion.model or self.model,
            input_tokens=usage.prompt_tokens if usage else 0,
            output_tokens=usage.completion_tokens if usage else 0,
            stop_reason=stop_reason,
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
        """`stream=True` with `stream_options.include_usage`; see `LlmModel.stream`."""
        request = self._request(messages, tools, response_schema, parallel_tool_calls)
        extra = without_none(params)
        options = {**(extra.pop("stream_options", None) or {}), "include_usage": True}
        try:
            chunks: openai.AsyncStream[Any]
            if self.direct_post:  # each chunk the JSON object it is (_openai_stream.py says why)
                chunks = await self._client.post(
                    "/chat/completions",
                    body={**request, **extra, "stream": True, "stream_options": options},
                    cast_to=ChatCompletion,
                    stream=True,
                    stream_cls=openai.AsyncStream[object],
                )
            else:
                chunks = await self._client.chat.completions.create(
                    **request,
                    stream=True,
                    stream_options=cast(ChatCompletionStreamOptionsParam, options),
                    extra_body=extra or None,
                )
        except openai.OpenAIError as error:
            raise self._provider_error(error) from None
        async with contextlib.aclosing(self._relay(chunks, openai_deltas(chunks, self.model))) as deltas:
            async for delta in deltas:
                yield delta

    def _request(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]],
        response_schema: Mapping[str, Any] | None,
        parallel_tool_calls: bool | None,
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.model, "messages": openai_messages(messages)}
        if tools:
            request["tools"] = [dict(tool) for tool in tools]
            if parallel_tool_calls is not None:
                request["parallel_tool_calls"] = parallel_tool_calls
        if response_schema is not None:
            request["response_format"] = response_format(response_schema)
        return request


def response_format(schema: Mapping[str, Any]) -> dict[str, Any]:
    """`response_format` for a JSON schema: strict only when the schema meets strict mode's rules (every
    object closed with `additionalProperties: false`, every property required); otherwise the schema is
    sent non-strict, as it is, rather than rewritten into a different contract."""
    title = str(schema.get("title") or "answer")
    name = re.sub(r"[^A-Za-z0-9_-]", "_", title)[:64]
    json_schema: dict[str, Any] = {"name": name, "schema": dict(schema), "strict": is_strict_schema(schema)}
    if isinstance(schema.get("description"), str):
        json_schema["description"] = schema["description"]
    return {"type": "json_schema", "json_schema": json_schema}


def is_strict_schema(schema: Mapping[str, Any]) -> bool:
    """Whether OpenAI's strict structured outputs accept the schema's shape (closed objects, all required)."""
    if schema.get("type") == "object" or "properties" in schema:
        properties = schema.get("properties") or {}
        if schema.get("additionalProperties") is not False or set(schema.get("required") or ()) != set(
            properties
        ):
            return False
        if not all(is_strict_schema(value) for value in properties.values()):
            return False
    children: list[Any] = []
    for key in ("$defs", "definitions"):
        children.extend((schema.get(key) or {}).values())
    for key in ("anyOf", "allOf", "oneOf", "prefixItems"):
        children.extend(schema.get(key) or ())
    if isinstance(schema.get("items"), Mapping):
        children.append(schema["items"])
    return all(is_strict_schema(child) for child in children if isinstance(child, Mapping))
