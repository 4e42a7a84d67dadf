"""The arguments of a prompt function (or a resource template function), read from its signature once.

Clients send every argument as a string; each one is converted to the parameter's annotation (`int`,
`bool`, an `Enum`, a `Literal`, ...) with pydantic's lax rules. `Literal` and `Enum` annotations also give
the values `completion/complete` offers. A description comes from `Annotated[str, "text"]` or
`Annotated[str, Field(description="text")]`.
"""

from __future__ import annotations

import enum
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

__all__ = ["Argument", "ArgumentError", "analyze_arguments", "context_parameter", "convert_arguments"]


class ArgumentError(ValueError):
    """A client's argument is missing or cannot be converted; the message names it."""


@dataclass(frozen=True, slots=True)
class Argument:
    """One argument: its wire descriptor and how a client's string becomes the parameter's value."""

    name: str
    description: str | None = None
    required: bool = True
    choices: tuple[str, ...] = ()
    adapter: TypeAdapter[Any] | None = field(default=None, compare=False)  # None: the string as is

    def descriptor(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"name": self.name, "required": self.required}
        if self.description:
            wire["description"] = self.description
        return wire

    def convert(self, raw: Any) -> Any:
        if self.adapter is None:
            if not isinstance(raw, str):
                raise ArgumentError(f"argument '{self.name}' must be a string, got {type(raw).__name__}")
            return raw
        try:
            return self.adapter.validate_python(raw)
        except ValidationError as exc:
            if isinstance(raw, str):
                try:
                    return self.adapter.validate_json(raw)
                except ValidationError:
                    pass
            reason = exc.errors()[0]["msg"] if exc.errors() else str(exc)
            allowed = f" (one of: {', '.join(self.choices)})" if self.choices else ""
            raise ArgumentError(f"argument '{self.name}' = {raw!r} is invalid: {reason}{allowed}") from None


def analyze_arguments(function: Callable[..., Any], *, skip_self: bool = False) -> tuple[Argument, ...]:
    """The arguments of `function`. Raises TypeError for `*args`/`**kwargs` (a prompt needs names)."""
    signature = inspect.signature(function)
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except Exception as exc:  # an unresolvable annotation: say which function
        raise TypeError(f"cannot read the annotations of {function.__qualname__}: {exc}") from None
    arguments = []
    parameters = list(signature.parameters.values())
    if skip_self and parameters:
        parameters = parameters[1:]
    for parameter in parameters:
        if _is_context(hints.get(parameter.name)):
            continue  # a ToolContext parameter receives the request's context, not an argument
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise TypeError(
                f"{function.__qualname__} takes *{parameter.name}; name each argument as a parameter"
            )
        annotation = hints.get(parameter.name, str)
        base, description = _unwrap_annotated(annotation)
        arguments.append(
            Argument(
                name=parameter.name,
                description=description,
                required=parameter.default is inspect.Parameter.empty,
                choices=_choices(base),
                adapter=None if base in (str, Any) else TypeAdapter(annotation),
            )
        )
    return tuple(arguments)


def context_parameter(function: Callable[..., Any]) -> str | None:
    """The name of the parameter typed `ToolContext` (input responses, request state), if any."""
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except Exception:
        return None
    return next((name for name, hint in hints.items() if name != "return" and _is_context(hint)), None)


def _is_context(annotation: Any) -> bool:
    from ..tools.context import ToolContext

    base, _ = _unwrap_annotated(annotation)
    if get_origin(base) in (Union, types.UnionType):
        return any(_is_context(member) for member in get_args(base) if member is not type(None))
    return isinstance(base, type) and issubclass(base, ToolContext)


def convert_arguments(
    arguments: tuple[Argument, ...], given: Mapping[str, Any] | None, *, owner: str
) -> dict[str, Any]:
    """Keyword arguments for the function; ArgumentError names every missing or unknown argument."""
    given = dict(given or {})
    known = {a.name for a in arguments}
    missing = [a.name for a in arguments if a.required and a.name not in given]
    if missing:
        raise ArgumentError(f"{owner} is missing the required argument(s): {', '.join(missing)}")
    unknown = sorted(set(given) - known)
    if unknown:
        expected = ", ".join(sorted(known)) or "none"
        raise ArgumentError(f"{owner} has no argument(s) {', '.join(unknown)} (it takes: {expected})")
    return {a.name: a.convert(given[a.name]) for a in arguments if a.name in given}


def _unwrap_annotated(annotation: Any) -> tuple[Any, str | None]:
    description = None
    if get_origin(annotation) is Annotated:
        base, *extras = get_args(annotation)
        for extra in extras:
            if isinstance(extra, str):
                description = extra
            elif isinstance(extra, FieldInfo) and extra.description:
                description = extra.description
        return base, description
    return annotation, None


def _choices(annotation: Any) -> tuple[str, ...]:
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        found: list[str] = []
        for member in get_args(annotation):
            found += [c for c in _choices(member) if c not in found]
        return tuple(found)
    if origin is Literal:
        return tuple(str(v.value if isinstance(v, enum.Enum) else v) for v in get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return tuple(str(member.value) for member in annotation)
    return ()
