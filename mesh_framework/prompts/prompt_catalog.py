"""`PromptCatalog`: every prompt of an agent (functions and Markdown files), listed and rendered."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from .._frozen import record
from ..argument_completion import complete_argument
from ..failures import log_failure
from ..input_required import InputNotPossible, InputRequired, input_required_result
from ..protocol.features import FeatureRequestError
from ..tools.context import ToolContext
from .arguments import Argument, ArgumentError, convert_arguments
from .markdown import MarkdownPrompt

__all__ = ["Prompt", "PromptCatalog", "PromptError"]

logger = logging.getLogger("mesh_framework.prompts")


class PromptError(FeatureRequestError):
    """A `prompts/get` or completion request that cannot be answered; the message says why and how to fix."""

    def __init__(self, message: str, *, internal: bool = False) -> None:
        super().__init__(message, internal=internal)  # internal: the prompt itself failed, not the request


@record(slots=True)
class Prompt:
    """One servable prompt. `target` returns the callable (a component's bound method is resolved late);
    Markdown prompts have `markdown` instead."""

    name: str
    description: str
    arguments: tuple[Argument, ...]
    title: str | None = None
    target: Callable[[], Callable[..., Any]] | None = None
    markdown: MarkdownPrompt | None = None
    origin: str = ""
    completers: dict[str, Callable[[], Callable[..., Any]]] | None = None
    context_param: str | None = None  # receives a ToolContext (input responses, request state)
    scopes: tuple[str, ...] = ()  # what a prompts/get asks of the caller's token

    def descriptor(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"name": self.name, "description": self.description}
        if self.title:
            wire["title"] = self.title
        wire["arguments"] = [a.descriptor() for a in self.arguments]
        return wire

    async def render(self, given: Mapping[str, Any] | None, context: ToolContext | None = None) -> Any:
        """The wire messages, or the `InputRequired` the function returned."""
        from .messages import PromptMessage, to_messages  # loaded with the first prompt rendered

        values = convert_arguments(self.arguments, given, owner=f"prompt '{self.name}'")
        if self.markdown is not None:
            text = self.markdown.render(values)
            return [PromptMessage(text, role=self.markdown.role).to_wire()]
        assert self.target is not None
        function = self.target()
        if self.context_param is not None:
            values[self.context_param] = context or ToolContext(self.name)
        if inspect.iscoroutinefunction(function):
            value = await function(**values)
        else:
            value = await asyncio.to_thread(function, **values)
        return value if isinstance(value, InputRequired) else to_messages(value)


class PromptCatalog:
    """The prompts of one agent, by name. Built at start-up; never changes while the agent runs."""

    def __init__(self, prompts: list[Prompt] | None = None) -> None:
        self._prompts = {p.name: p for p in prompts or []}
        self._listed = [p.descriptor() for p in self._prompts.values()]

    def __iter__(self) -> Iterator[Prompt]:
        return iter(self._prompts.values())

    def __len__(self) -> int:
        return len(self._prompts)

    def get(self, name: str) -> Prompt | None:
        return self._prompts.get(name)

    def scopes_of(self, name: Any) -> tuple[str, ...]:
        """The scopes a `prompts/get` of `name` needs (none for a name it does not serve)."""
        prompt = self._prompts.get(name) if isinstance(name, str) else None
        return prompt.scopes if prompt is not None else ()

    def declared_scopes(self) -> dict[str, tuple[str, ...]]:
        """Each scoped prompt's scopes, by `prompt NAME`."""
        return {f"prompt {p.name}": p.scopes for p in self if p.scopes}

    def descriptors(self) -> list[dict[str, Any]]:
        return self._listed

    def _find(self, name: Any) -> Prompt:
        prompt = self._prompts.get(name) if isinstance(name, str) else None
        if prompt is None:
            available = ", ".join(self._prompts) or "none"
            raise PromptError(f"Unknown prompt '{name}'. Available prompts: {available}")
        return prompt

    async def render(self, name: Any, arguments: Any, context: ToolContext | None = None) -> dict[str, Any]:
        """The `GetPromptResult` of prompt `name` (or an `InputRequiredResult` on 2026-07-28); PromptError
        for a bad request or a failing prompt."""
        prompt = self._find(name)
        if arguments is not None and not isinstance(arguments, Mapping):
            raise PromptError(f"prompts/get params.arguments must be an object, not {arguments!r}")
        try:
            messages = await prompt.render(arguments, context)
        except ArgumentError as exc:
            raise PromptError(str(exc)) from None
        except Exception as exc:
            log_failure(logger, f"prompt '{prompt.name}'", exc)
            raise PromptError(
                f"Prompt '{prompt.name}' failed: {type(exc).__name__}: {exc}", internal=True
            ) from None
        if isinstance(messages, InputRequired):
            return _input_required(prompt.name, messages, context)
        result: dict[str, Any] = {"messages": messages}
        if prompt.description:
            result["description"] = prompt.description
        return result

    async def complete(
        self, name: Any, argument: str, value: str, context: Mapping[str, str]
    ) -> dict[str, Any]:
        prompt = self._find(name)
        return await complete_argument(
            f"prompt '{prompt.name}'",
            "argument",
            arguments=prompt.arguments,
            completers=prompt.completers,
            argument=argument,
            value=value,
            context=context,
            error=PromptError,
        )


def _input_required(name: str, value: InputRequired, context: ToolContext | None) -> dict[str, Any]:
    """The `InputRequiredResult` of a prompt that asks the client first (2026-07-28 only)."""
    try:
        return input_required_result(f"Prompt '{name}'", value, context)
    except InputNotPossible as exc:
        raise PromptError(str(exc)) from None
