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
from dataclasses import field
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

from .._frozen import frozen
from ..errors import MeshError

__all__ = [
    "Argument",
    "ArgumentError",
    "analyze_arguments",
    "context_parameter",
    "convert_arguments",
    "resolve_hints",
]


class ArgumentError(MeshError, ValueError):
    """A client's argument is missing or cannot be converted; the message names it."""


@frozen
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


def analyze_arguments(
    function: Callable[..., Any], *, skip_self: bool = False, context: bool = True
) -> tuple[Argument, ...]:
    """The arguments of `function`. Raises TypeError for `*args`/`**kwargs` (a prompt needs names), for an
    annotation that does not resolve, and, unless `context`, for a `ToolContext` parameter (resources get
    none)."""
    signature = inspect.signature(function)
    hints = resolve_hints(function)
    arguments = []
    parameters = list(signature.parameters.values())
    if skip_self and parameters:
        parameters = parameters[1:]
    for parameter in parameters:
        if _is_context(hints.get(parameter.name)):
            if not context:
                raise TypeError(
                    f"{function.__qualname__} takes a ToolContext ('{parameter.name}'), which a resource "
                    "function does not receive; remove the parameter"
                )
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
    """The name of the parameter typed `ToolContext` (input responses, request state), if any. Raises
    TypeError, as `analyze_arguments` does, when an annotation does not resolve: a context parameter
    whose type cannot be read would otherwise go unnoticed until a call."""
    hints = resolve_hints(function)
    return next((name for name, hint in hints.items() if name != "return" and _is_context(hint)), None)


def resolve_hints(function: Callable[..., Any]) -> dict[str, Any]:
    """`function`'s annotations, resolved; a TypeError naming the function, the parameter and the
    annotation that does not resolve (a name imported only under TYPE_CHECKING, a typo, a local class)."""
    try:
        return typing.get_type_hints(function, include_extras=True)
    except Exception as exc:
        error = exc
    target = inspect.unwrap(function)
    where = f"{getattr(target, '__module__', '?')}.{getattr(target, '__qualname__', repr(target))}"
    for name, annotation in getattr(target, "__annotations__", {}).items():
        probe = types.SimpleNamespace(
            __annotations__={name: annotation}, __globals__=getattr(target, "__globals__", {})
        )
        try:
            typing.get_type_hints(probe, include_extras=True)
        except Exception as exc:
            what = "the return annotation" if name == "return" else f"the annotation of parameter '{name}'"
            raise TypeError(
                f"{where}: {what}, {_shown(annotation)}, does not resolve ({exc}); import the type at "
                "module level (not only under TYPE_CHECKING) or fix the name"
            ) from None
    raise TypeError(f"{where}: its annotations do not resolve ({error})") from None


def _shown(annotation: Any) -> str:
    return (
        repr(annotation) if isinstance(annotation, str) else getattr(annotation, "__name__", repr(annotation))
    )


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
