"""A click command's options and arguments as an MCP input schema, a validator, and back to argv.

Computed once at start-up. Types: int, float, bool (flags and `BOOL` options), `Choice` as `enum`,
`IntRange`/`FloatRange` with bounds, `multiple` and `nargs` as arrays, paths, files and everything else as
strings. Defaults, `required` and `help` are carried over. Hidden options and `--help` are left out.
"""

from __future__ import annotations

import enum
import inspect
import types
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import click
from pydantic import BaseModel, ConfigDict, Field, create_model

from .._frozen import frozen

__all__ = ["CommandParam", "CommandSchema", "analyze_command"]

_UNSET = getattr(click.core, "UNSET", None)


@frozen
class CommandParam:
    """One option or argument, and how its value goes back on the command line."""

    name: str
    kind: Literal["option", "flag", "count", "argument"]
    opt: str = ""  # the option string used (`--dry-run`)
    off_opt: str | None = None  # `--no-dry-run` of an on/off flag
    on_by_default: bool = False  # a flag that is on unless its off option is given
    multiple: bool = False
    nargs: int = 1

    def argv(self, value: Any) -> list[str]:
        """The command-line words for `value` (arguments: the words after `--`)."""
        if self.kind == "flag":
            if value:
                return [self.opt]
            if self.off_opt:
                return [self.off_opt]
            if self.on_by_default:
                raise ValueError(
                    f"{self.name}: the command has no option to turn {self.opt} off (it is on by default)"
                )
            return []
        if self.kind == "count":
            return [self.opt] * int(value)
        items = list(value) if (self.multiple or self.nargs != 1) and value is not None else [value]
        if self.kind == "argument":
            return [_word(v) for v in items]
        words: list[str] = []
        if self.nargs != 1 and self.multiple:
            for group in items:
                words += [self.opt, *(_word(v) for v in group)]
        elif self.nargs != 1:
            words += [self.opt, *(_word(v) for v in items)]
        else:
            for item in items:
                words += [self.opt, _word(item)]
        return words


@frozen
class CommandSchema:
    input_schema: dict[str, Any]
    model: type[BaseModel]
    params: tuple[CommandParam, ...]

    def argv(self, arguments: Mapping[str, Any]) -> list[str]:
        """Validated arguments as argv: options first, then `--` and the positional arguments. Only the
        values the caller gave are passed, so click applies its own defaults (dynamic ones included)."""
        options: list[str] = []
        positional: list[str] = []
        for param in self.params:
            if param.name in arguments and arguments[param.name] is not None:
                words = param.argv(arguments[param.name])
                (positional if param.kind == "argument" else options).extend(words)
        return [*options, "--", *positional] if positional else options


def _word(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, enum.Enum):
        return value.name
    return str(value)


def _json_value(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _choice_values(choice: click.Choice[Any]) -> list[Any]:
    return [_json_value(c) for c in choice.choices]


def _scalar(kind: click.ParamType[Any]) -> tuple[Any, dict[str, Any]]:
    """The Python type (for validation) and JSON schema of one value of a click type."""
    if isinstance(kind, click.Choice):
        values = _choice_values(kind)
        literal: Any = Literal[tuple(values)] if values else str
        return literal, {"type": "string", "enum": values} if all(isinstance(v, str) for v in values) else {
            "enum": values
        }
    if isinstance(kind, (click.IntRange, click.FloatRange)) and not kind.clamp:
        base: Any = int if isinstance(kind, click.IntRange) else float
        bounds: dict[str, Any] = {}
        if kind.min is not None:
            bounds["gt" if kind.min_open else "ge"] = kind.min
        if kind.max is not None:
            bounds["lt" if kind.max_open else "le"] = kind.max
        names = {"ge": "minimum", "gt": "exclusiveMinimum", "le": "maximum", "lt": "exclusiveMaximum"}
        schema = {"type": "integer" if base is int else "number"} | {names[k]: v for k, v in bounds.items()}
        return Annotated[base, Field(**bounds)], schema
    if isinstance(kind, click.types.IntParamType):
        return int, {"type": "integer"}
    if isinstance(kind, click.types.FloatParamType):
        return float, {"type": "number"}
    if isinstance(kind, click.types.BoolParamType):
        return bool, {"type": "boolean"}
    if isinstance(kind, click.types.UUIDParameterType):
        return str, {"type": "string", "format": "uuid"}
    return str, {"type": "string"}


def _annotated(annotation: Any) -> tuple[Any, dict[str, Any]]:
    """Python type and JSON schema of one value of a Typer parameter's annotation (Typer 0.2x keeps the
    annotation instead of a click type): enums and literals by value, paths and the rest as strings."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        return _annotated(args[0]) if len(args) == 1 else (str, {"type": "string"})
    if origin is Annotated:
        return _annotated(get_args(annotation)[0])
    if origin is Literal or (isinstance(annotation, type) and issubclass(annotation, enum.Enum)):
        values = list(get_args(annotation)) if origin is Literal else [m.value for m in annotation]
        literal: Any = Literal[tuple(values)]
        return literal, {"type": "string", "enum": values} if all(isinstance(v, str) for v in values) else {
            "enum": values
        }
    for python, kind in ((bool, "boolean"), (int, "integer"), (float, "number")):
        if annotation is python:
            return python, {"type": kind}
    return str, {"type": "string"}


def _element(annotation: Any) -> Any:
    """The element type of a `list[X]` (or `X | None` of one) annotation, else the annotation."""
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        annotation = args[0] if len(args) == 1 else annotation
    if get_origin(annotation) in (list, tuple, set, frozenset) and get_args(annotation):
        return get_args(annotation)[0]
    return annotation


def _value(param: Any) -> tuple[Any, dict[str, Any]]:
    """Python type and JSON schema of the whole parameter (arrays for multiple and nargs)."""
    kind = getattr(param, "type", None)
    descriptor = getattr(param, "type_descriptor", None)
    if kind is None and descriptor is not None:  # a Typer 0.2x parameter
        annotation = descriptor.annotation
        if param.multiple or param.nargs == -1:
            annotation = _element(annotation)
        if get_origin(annotation) is tuple and param.nargs > 1:
            parts = [_annotated(a) for a in get_args(annotation)]
            python: Any = tuple[tuple(p[0] for p in parts)]  # type: ignore[misc]
            schema: dict[str, Any] = {
                "type": "array",
                "prefixItems": [p[1] for p in parts],
                "minItems": len(parts),
                "maxItems": len(parts),
            }
        else:
            python, schema = _annotated(annotation)
    elif isinstance(kind, click.Tuple):
        parts = [_scalar(t) for t in kind.types]
        python = tuple[tuple(p[0] for p in parts)]  # type: ignore[misc]
        schema = {
            "type": "array",
            "prefixItems": [p[1] for p in parts],
            "minItems": len(parts),
            "maxItems": len(parts),
        }
    else:
        python, schema = _scalar(kind) if kind is not None else (str, {"type": "string"})
        if param.nargs > 1:
            python = tuple[(python,) * param.nargs]  # type: ignore[misc]
            schema = {"type": "array", "items": schema, "minItems": param.nargs, "maxItems": param.nargs}
    if param.multiple or param.nargs == -1:
        python = list[python]
        schema = {"type": "array", "items": schema}
    return python, schema


def _default(param: Any) -> Any:
    default = param.default
    if default is _UNSET or default is None or callable(default):
        return _UNSET
    if (param.multiple or param.nargs == -1) and not default:
        return _UNSET
    return _json_value(default)


def _help(command: Any) -> str:
    text = command.help or command.short_help or ""
    return inspect.cleandoc(text.split("\f", 1)[0]).replace("\b\n", "")


def _is_option(param: Any) -> bool:
    """An option (click's or Typer's own classes alike); anything else is a positional argument."""
    return isinstance(param, click.Option) or hasattr(param, "is_flag")


def analyze_command(command: Any, model_name: str) -> tuple[CommandSchema, str]:
    """The schema of `command` (a click command, or a command of a Typer app) and its description (its
    help text up to `\\f`)."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    fields: dict[str, Any] = {}
    params: list[CommandParam] = []
    for index, param in enumerate(command.params):
        if param.name is None or getattr(param, "hidden", False) or not param.expose_value:
            continue
        default = _default(param)
        option = _is_option(param)
        if option and param.count:
            python: Any = Annotated[int, Field(ge=0)]
            schema: dict[str, Any] = {"type": "integer", "minimum": 0}
            plan = CommandParam(param.name, "count", opt=_long(param.opts))
        elif option and param.is_flag:
            python, schema = bool, {"type": "boolean"}
            if default is _UNSET:
                default = False  # an unset flag is off
            elif not isinstance(default, bool):
                default = default == _json_value(getattr(param, "flag_value", True))
            plan = CommandParam(
                param.name, "flag", opt=_long(param.opts), off_opt=_off(param), on_by_default=default is True
            )
        elif option:
            python, schema = _value(param)
            plan = CommandParam(
                param.name, "option", opt=_long(param.opts), multiple=param.multiple, nargs=param.nargs
            )
        else:
            python, schema = _value(param)
            plan = CommandParam(param.name, "argument", multiple=param.nargs == -1, nargs=param.nargs)
        help_text = getattr(param, "help", None)
        if help_text:
            schema = {**schema, "description": inspect.cleandoc(help_text)}
        must = param.required or (option and bool(param.prompt) and default is _UNSET)
        if default is not _UNSET:
            schema = {**schema, "default": default}
        if must:
            required.append(param.name)
            fields[f"p{index}"] = (python, Field(alias=param.name))
        else:
            fields[f"p{index}"] = (python | None, Field(None, alias=param.name))
        properties[param.name] = schema
        params.append(plan)
    input_schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        input_schema["required"] = required
    input_schema["additionalProperties"] = False
    model: type[BaseModel] = create_model(
        model_name, __config__=ConfigDict(extra="forbid", populate_by_name=False), **fields
    )
    return CommandSchema(input_schema, model, tuple(params)), _help(command)


def _long(opts: list[str]) -> str:
    """The option string to pass: the first long one (`--name`), else the first."""
    return next((o for o in opts if o.startswith("--")), opts[0])


def _off(option: Any) -> str | None:
    return _long(option.secondary_opts) if option.secondary_opts else None
