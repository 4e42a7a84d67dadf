"""`@mesh_prompt`: serve a function (or a component's method) as an MCP prompt. It records, nothing more."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, overload

from .._frozen import frozen
from ..specs import scope_names

__all__ = ["PROMPT_ATTR", "PromptSpec", "mesh_prompt"]

PROMPT_ATTR = "__mesh_prompt__"
F = TypeVar("F", bound=Callable[..., Any])

_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,128}$")


@frozen
class PromptSpec:
    function: Callable[..., Any]
    name: str | None = None
    title: str | None = None
    description: str | None = None
    scopes: tuple[str, ...] = ()  # what a prompts/get asks of the caller's token


@overload
def mesh_prompt(function: F, /) -> F: ...
@overload
def mesh_prompt(
    name: str | None = None,
    *,
    title: str | None = None,
    description: str | None = None,
    scopes: Sequence[str] = (),
) -> Callable[[F], F]: ...
def mesh_prompt(
    name: Any = None, *, title: str | None = None, description: str | None = None, scopes: Sequence[str] = ()
) -> Any:
    """Serve the function as a prompt: its parameters are the prompt's arguments (all sent as strings,
    converted to the annotations), its docstring the description, its return value the messages.

    The name defaults to the function name (`@mesh_prompt("review")` or `@mesh_prompt(name="review")`).
    `scopes`: what the caller's access token must grant to get the prompt (a `prompts/get` without them
    is refused with 403 `insufficient_scope`, as a tool call is; the prompt is still listed).
    Return a string (one user message), a `PromptMessage`, a content block (`ImageContent`,
    `EmbeddedResource`, ...) or a list of these. Usage::

        @mesh_prompt()
        def review(code: str, language: Literal["python", "go"] = "python") -> str:
            "Ask for a code review."
            return f"Review this {language} code:\\n{code}"
    """
    if callable(name):
        return _mark(name, None, title, description, ())
    if name is not None and not _NAME.match(name):
        raise ValueError(f"Prompt name {name!r} is invalid: use 1-128 letters, digits, '_', '-' or '.'")
    wanted = scope_names(scopes, f"@mesh_prompt({name!r})" if name else "@mesh_prompt")
    return lambda function: _mark(function, name, title, description, wanted)


def _mark(
    function: F, name: str | None, title: str | None, description: str | None, scopes: tuple[str, ...]
) -> F:
    if not callable(function):
        raise TypeError(f"@mesh_prompt applies to functions and methods, not {function!r}")
    setattr(function, PROMPT_ATTR, PromptSpec(function, name, title, description, scopes))
    return function
