"""`LlmAgent`: the `MeshLlmAgent` an `@mesh_llm` tool receives — a model plus the tools it may call."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..callbacks.connection_info import McpConnectionInfo
from ..callbacks.definition import ToolCallback
from ..callbacks.naming import ToolNameGenerator, assign_names
from ..callbacks.provider import ToolCallbackProvider
from ..injectables import MeshLlmAgent
from ..tools.context import ToolContext
from .config import LlmToolConfig
from .model import LlmError, LlmModel

if TYPE_CHECKING:  # the tool loop, media, the mesh's providers and the turns' types load with a first run
    from .loop import ToolLoop
    from .types import LlmUsage, Message

__all__ = ["LlmAgent", "LlmText", "usage_of"]

USAGE_ATTR = "__mesh_llm_usage__"


class LlmText(str):
    """A text answer; `usage` says what it cost (model, tokens, iterations, latency)."""

    usage: LlmUsage

    def __new__(cls, text: str, usage: LlmUsage) -> LlmText:
        value = super().__new__(cls, text)
        value.usage = usage
        return value


def usage_of(result: Any) -> LlmUsage | None:
    """The usage of an LLM answer (text or a structured value), or None."""
    return (
        getattr(result, "usage", None) if isinstance(result, LlmText) else getattr(result, USAGE_ATTR, None)
    )


def _with_usage(value: Any, usage: LlmUsage) -> Any:
    if isinstance(value, str):
        return LlmText(value, usage)
    # A pydantic model keeps it out of its fields; builtins (lists, ints) cannot carry it, but
    # `agent.last_usage` still can.
    with contextlib.suppress(AttributeError, TypeError):
        object.__setattr__(value, USAGE_ATTR, usage)
    return value


class LlmAgent(MeshLlmAgent):
    """Runs the tool loop for one `@mesh_llm` tool.

    Usage (inside the tool)::

        answer = await llm("What is 2 + 3?")                       # text, or the tool's return type
        report = await llm([{"role": "user", "content": "..."}], context={"user": "ada"}, temperature=0)
    """

    def __init__(
        self,
        config: LlmToolConfig,
        model: LlmModel,
        providers: Sequence[ToolCallbackProvider] = (),
        callbacks: Sequence[ToolCallback] = (),
    ) -> None:
        self.config = config
        self.model = model
        self.providers = list(providers)
        self.callbacks = list(callbacks)
        self.last_usage: LlmUsage | None = None
        # Told what each run cost: (tool, usage). Metrics set it when the app is built.
        self.on_usage: Callable[[str, LlmUsage], None] | None = None
        self._names = ToolNameGenerator()

    async def tools(self) -> list[ToolCallback]:
        """The tools the model is offered now (the mesh's current `llm_tools`, catalog and local ones)."""
        found: list[ToolCallback] = []
        for provider in self.providers:
            found.extend(await provider.get_tool_callbacks())
        found.extend(self.callbacks)
        infos = [McpConnectionInfo(server_name=c.definition.connection or "local") for c in found]
        named = assign_names(
            self._names, [(info, c.definition) for info, c in zip(infos, found, strict=True)]
        )
        return [
            c if d.name == c.definition.name else _Renamed(c, d.name)
            for c, d in zip(found, named, strict=True)
        ]

    async def __call__(self, message: str | list[dict[str, Any]], **options: Any) -> Any:
        """Run the tool loop for `message` (text, or a list of chat messages).

        Options: `context` (a dict: rendered into the system prompt template, and sent as `_meta` with
        tool calls), `system_prompt` (replaces the configured one), `response_model` (the type of the
        answer), `media` (media URIs, e.g. a `MediaParam` argument: images and PDFs the model sees with
        the message), and model parameters (`temperature`, `max_tokens`, ...).
        """
        output = options.pop("response_model", None) or self.config.response_model
        loop, messages = await self._loop(message, options)
        try:
            value = await loop.run(messages, output)
        finally:
            self._used(loop.usage)
        return _with_usage(value, loop.usage)

    async def stream(self, message: str | list[dict[str, Any]], **options: Any) -> AsyncGenerator[str]:
        """Run the tool loop and yield the final answer's text as the model streams it, one chunk per
        model delta. Iterations that call tools are run whole (text before a tool call passes as it
        comes). Options as for calling the agent; a structured answer (`response_model`) cannot stream.

        Usage (inside a tool returning `Stream[str]`)::

            async for chunk in llm.stream(prompt):
                yield chunk

        Leaving the loop early (the tool's caller went away) closes the model's stream. `last_usage`
        is set when the stream ends."""
        output = options.pop("response_model", None) or self.config.response_model
        if output is not None and output is not str:
            raise LlmError(
                f"LLM tool '{self.config.tool}': llm.stream() gives text, but the answer is to be "
                f"{getattr(output, '__name__', output)!r}; call `await llm(...)` for a structured answer"
            )
        loop, messages = await self._loop(message, options)
        from .mesh_provider import MeshProviderModel

        try:
            if isinstance(self.model, MeshProviderModel):
                chunks = self.model.stream_loop(loop, messages)
            else:
                chunks = loop.stream(messages)
            async with contextlib.aclosing(chunks):
                async for chunk in chunks:
                    yield chunk
        finally:
            self._used(loop.usage)

    async def _loop(
        self, message: str | list[dict[str, Any]], options: dict[str, Any]
    ) -> tuple[ToolLoop, list[Message]]:
        from .loop import ToolLoop

        context: Mapping[str, Any] = options.pop("context", None) or {}
        system_prompt: str | None = options.pop("system_prompt", None)
        media = options.pop("media", None)
        messages = self._messages(message, context, system_prompt)
        if media:
            messages[-1] = await _with_media(messages[-1], media)
        loop = ToolLoop(
            self.model,
            await self.tools(),
            max_iterations=self.config.max_iterations,
            params={**self.config.model_params, **options},
            parallel_tool_calls=self.config.parallel_tool_calls,
            context=ToolContext.of(context, tool_name=self.config.tool),
            label=f"LLM tool '{self.config.tool}'",
        )
        return loop, messages

    def _used(self, usage: LlmUsage) -> None:
        self.last_usage = usage
        if self.on_usage is not None:
            self.on_usage(self.config.tool, usage)

    def _messages(
        self, message: str | list[dict[str, Any]], context: Mapping[str, Any], system_prompt: str | None
    ) -> list[Message]:
        messages: list[Message] = []
        if system_prompt is not None:
            messages.append({"role": "system", "content": system_prompt})
        elif self.config.system_prompt is not None:
            messages.append({"role": "system", "content": self.config.system_prompt.render(context)})
        if isinstance(message, str):
            messages.append({"role": "user", "content": message})
        else:
            messages.extend(dict(m) for m in message)
        return messages

    async def aclose(self) -> None:
        for provider in self.providers:
            await provider.aclose()
        await self.model.aclose()

    def unavailable(self) -> str | None:
        return self.model.unavailable()

    def __repr__(self) -> str:
        return f"<LlmAgent {self.config.tool} -> {self.model.name}>"


class _Renamed(ToolCallback):
    """A callback offered under another name (two sources named a tool alike)."""

    def __init__(self, inner: ToolCallback, name: str) -> None:
        self.inner = inner
        self.definition = inner.definition.renamed(name)
        self.loop = inner.loop

    async def call_result(
        self, arguments: Mapping[str, Any] | None = None, context: ToolContext | None = None
    ) -> dict[str, Any]:
        return await self.inner.call_result(arguments, context)


async def _with_media(message: Message, media: Any) -> Message:
    """The last message with the media's parts after its text (one URI or a list of them; None, an
    optional media parameter left out, is skipped)."""
    from .media import media_parts

    uris = [media] if isinstance(media, str) else [uri for uri in media if uri]
    if not uris:
        return message
    content = message.get("content")
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
    return {**message, "content": parts + await media_parts(uris)}
