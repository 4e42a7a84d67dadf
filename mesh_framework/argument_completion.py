"""Completion of prompt and resource-template arguments (`completion/complete`).

An argument typed with a `Literal` or an `Enum` completes from its values; any argument can have a
completer function instead::

    @completer("language", prompt="review")
    def languages(value: str) -> list[str]:
        return [name for name in KNOWN if name.startswith(value)]

    @completer("service", resource="logs://{service}/{date}")
    async def services(value: str, context: Mapping[str, str]) -> list[str]: ...

`context` holds the arguments the client already filled in. Answers are capped at 100 values, as the
protocol requires.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from ._frozen import frozen
from .failures import log_failure

logger = logging.getLogger("mesh_framework.argument_completion")

__all__ = [
    "complete_argument",
    "COMPLETER_ATTR",
    "CompleterSpec",
    "MAX_COMPLETIONS",
    "call_completer",
    "complete_from",
    "completer",
]

COMPLETER_ATTR = "__mesh_completer__"
MAX_COMPLETIONS = 100

F = TypeVar("F", bound=Callable[..., Any])


@frozen
class CompleterSpec:
    """What `@completer` recorded: which argument of which prompt (or resource template) it completes."""

    function: Callable[..., Any]
    argument: str
    prompt: str | None = None
    resource: str | None = None

    @property
    def target(self) -> str:
        return (
            f"prompt '{self.prompt}'" if self.prompt is not None else f"resource template '{self.resource}'"
        )


def completer(argument: str, *, prompt: str | None = None, resource: str | None = None) -> Callable[[F], F]:
    """Complete `argument` of the prompt named `prompt`, or of the resource template `resource`.

    The function takes the partial value (and, optionally, a second parameter: the arguments already
    given) and returns candidate values, sync or async.
    """
    if (prompt is None) == (resource is None):
        raise ValueError("@completer needs exactly one of prompt='name' or resource='uri-template'")
    if not argument:
        raise ValueError("@completer needs the name of the argument it completes")

    def mark(function: F) -> F:
        if not callable(function):
            raise TypeError(f"@completer applies to functions, not {function!r}")
        count = len(
            [
                p
                for p in inspect.signature(function).parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name not in ("self", "cls")
            ]
        )
        if count not in (1, 2):
            raise TypeError(
                f"@completer function {function.__qualname__} must take (value) or (value, context), "
                f"not {count} parameters"
            )
        setattr(function, COMPLETER_ATTR, CompleterSpec(function, argument, prompt, resource))
        return function

    return mark


def complete_from(values: Iterable[str], value: str) -> dict[str, Any]:
    """The `completion` object for the candidates starting with `value` (case-insensitive)."""
    prefix = value.casefold()
    matches = [v for v in values if v.casefold().startswith(prefix)]
    return _answer(matches)


async def call_completer(
    function: Callable[..., Any], value: str, context: Mapping[str, str]
) -> dict[str, Any]:
    """Run a completer function and shape its answer as a `completion` object."""
    positional = [
        p
        for p in inspect.signature(function).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    args: tuple[Any, ...] = (value, dict(context)) if len(positional) >= 2 else (value,)
    if inspect.iscoroutinefunction(function):
        found = await function(*args)
    else:
        found = await asyncio.to_thread(function, *args)
    if isinstance(found, str) or not isinstance(found, Iterable):
        raise TypeError(
            f"completer {getattr(function, '__qualname__', function)} must return a list of strings"
        )
    return _answer([str(v) for v in found])


def _answer(values: Sequence[str]) -> dict[str, Any]:
    completion: dict[str, Any] = {"values": list(values[:MAX_COMPLETIONS]), "total": len(values)}
    completion["hasMore"] = len(values) > MAX_COMPLETIONS
    return completion


async def complete_argument(
    owner: str,
    noun: str,
    *,
    arguments: Sequence[Any],
    completers: Mapping[str, Callable[[], Any]] | None,
    argument: str,
    value: str,
    context: Mapping[str, str],
    error: Callable[..., Exception],
) -> dict[str, Any]:
    """Complete `argument` of `owner` (e.g. "prompt 'review'"; its `arguments` have `name` and `choices`):
    its completer when it has one, else its declared choices. Problems raise `error(message, internal=)`."""
    declared = next((a for a in arguments if a.name == argument), None)
    if declared is None:
        names = ", ".join(a.name for a in arguments) or "none"
        raise error(f"{owner} has no {noun} '{argument}' (it has: {names})")
    completer = (completers or {}).get(argument)
    if completer is None:
        return complete_from(declared.choices, value)
    try:
        return await call_completer(completer(), value, context)
    except Exception as exc:
        log_failure(logger, f"completer of {owner} {noun} '{argument}'", exc)
        raise error(
            f"Completer of {owner} {noun} '{argument}' failed: {type(exc).__name__}: {exc}", internal=True
        ) from None
