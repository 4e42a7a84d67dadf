"""Settings sections given plain values (text, numbers, booleans, lists of text), made without building their
pydantic validator: what validating them gives, or None for pydantic to validate them (and report problems).

Building a section's validator costs 0.2-2 ms (`mcp` builds those of the OpenAPI services and login clients
it may hold) while an agent's files, environment and command line mostly set a port, a path, a level or a
list of names. Anything else (a secret, a mapping, a nested model, text where a number belongs, a value out
of range, a validator that reads other fields or raises) is left to pydantic, so every problem is reported
as before; tests/settings/test_settings_plain_values.py checks that each value taken here is what
validating it gives.
"""

from __future__ import annotations

import inspect
import operator
import types
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

from annotated_types import Ge, Gt, Le, Lt
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from .settings import _unset, field_default, section_model

__all__ = ["plain_section"]

_Model = TypeVar("_Model", bound=BaseModel)

# What a plain check cannot tell apart from a valid value: pydantic decides.
_NOT_PLAIN: Any = object()

_BOOLEANS = {"true": True, "false": False}
_EXACT_FLOAT = 2**53  # a larger whole number may not convert to a float exactly (pydantic decides)
_CONFIG_KEYS = frozenset({"extra", "validate_default", "defer_build", "title"})


def plain_section(model: type[_Model], data: Any) -> _Model | None:
    """`model` of the mapping `data` as `model.model_validate(data)` makes it, when every value is plain and
    valid; None when pydantic must validate it."""
    checks = _checks(model)
    if checks is None or not isinstance(data, dict):
        return None
    values: dict[str, Any] = {}
    for key, value in data.items():
        check = checks.get(key) if isinstance(key, str) else None
        if check is None:
            return None
        values[key] = check(value)
        if values[key] is _NOT_PLAIN:
            return None
    for name, info in model.model_fields.items():
        if name not in values:
            values[name] = field_default(info)  # what validating it gives (test_settings_sections)
    return model.model_construct(_fields_set=set(data), **values)


_Check = Callable[[Any], Any]
_CHECKS: dict[type[BaseModel], dict[str, _Check] | None] = {}


def _checks(model: type[BaseModel]) -> dict[str, _Check] | None:
    """The check of each field of `model` (made once), or None when the model cannot be checked plainly."""
    if model not in _CHECKS:
        _CHECKS[model] = _model_checks(model)
    return _CHECKS[model]


def _model_checks(model: type[BaseModel]) -> dict[str, _Check] | None:
    if not set(model.model_config) <= _CONFIG_KEYS or model.model_config.get("extra") != "forbid":
        return None
    decorators = model.__pydantic_decorators__
    if (
        decorators.model_validators
        or decorators.root_validators
        or decorators.validators
        or decorators.computed_fields
    ):
        return None
    before: dict[str, list[_Check]] = {}
    after: dict[str, list[_Check]] = {}
    for validator in decorators.field_validators.values():
        mode = validator.info.mode
        if mode not in ("before", "after") or "*" in validator.info.fields:
            return None
        function = validator.func
        if _arguments(function) != 1:
            return None  # it reads the other fields (`info.data`): pydantic validates the section
        for name in validator.info.fields:
            (before if mode == "before" else after).setdefault(name, []).append(function)
    checks: dict[str, _Check] = {}
    for name, info in model.model_fields.items():
        if len(before.get(name, ())) > 1 or len(after.get(name, ())) > 1:
            return None
        if info.alias is not None or info.validation_alias is not None or info.is_required():
            return None
        check = _annotation_check(info.annotation, info.metadata)
        if check is None and info.default_factory is _unset:
            check = _section_check(section_model(info))
        if check is not None:
            checks[name] = _with_validators(check, before.get(name, []), after.get(name, []))
        else:
            checks[name] = _pydantic_decides
    return checks


def _arguments(function: Callable[..., Any]) -> int | None:
    """How many arguments a validator (a bound class method) takes besides its class; None: not a plain
    function (pydantic decides). The code object tells as `inspect.signature` does, 20 times faster."""
    plain = getattr(function, "__func__", None)
    if not isinstance(function, types.MethodType) or not isinstance(plain, types.FunctionType):
        return None
    code = plain.__code__
    if code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) or code.co_kwonlyargcount:
        return None
    return code.co_argcount - 1


def _pydantic_decides(value: Any) -> Any:
    return _NOT_PLAIN


def _section_check(model: type[BaseModel]) -> _Check:
    def check(value: Any) -> Any:
        section = plain_section(model, value)
        return _NOT_PLAIN if section is None else section

    return check


def _with_validators(check: _Check, before: list[_Check], after: list[_Check]) -> _Check:
    if not before and not after:
        return check

    def validated(value: Any) -> Any:
        try:
            for validator in before:
                value = validator(value)
            value = check(value)
            if value is _NOT_PLAIN:
                return _NOT_PLAIN
            for validator in after:
                value = validator(value)
        except Exception:  # pydantic runs it again and reports what it raised
            return _NOT_PLAIN
        return value

    return validated


def _annotation_check(annotation: Any, metadata: list[Any]) -> _Check | None:
    """The check of a value of `annotation` (with the constraints in `metadata`), or None when the type is
    not one checked plainly."""
    origin = get_origin(annotation)
    if origin is Annotated:
        inner, *extra = get_args(annotation)
        constraints: list[Any] = []
        for item in extra:
            constraints.extend(item.metadata if isinstance(item, FieldInfo) else [item])
        return _annotation_check(inner, [*metadata, *constraints])
    if origin in (Union, types.UnionType):
        options = get_args(annotation)
        if len(options) != 2 or type(None) not in options or metadata:
            return None
        other = _annotation_check(next(o for o in options if o is not type(None)), metadata)
        if other is None:
            return None
        return lambda value: None if value is None else other(value)
    bounds = _bounds(metadata)
    if bounds is None:
        return None
    if origin is Literal and not metadata:
        choices = get_args(annotation)
        return lambda value: (
            value if any(type(value) is type(c) and value == c for c in choices) else _NOT_PLAIN
        )
    if origin is list and get_args(annotation) == (str,) and not metadata:
        return _list_of_text
    if annotation in _SCALARS and (not metadata or annotation in (int, float)):  # bounds: numbers only
        convert = _SCALARS[annotation]
        return lambda value: _within(convert(value), bounds)
    return None


_Bound = tuple[Callable[[Any, Any], bool], Any]
_COMPARISONS: dict[type, tuple[Callable[[Any, Any], bool], str]] = {
    Gt: (operator.gt, "gt"),
    Ge: (operator.ge, "ge"),
    Lt: (operator.lt, "lt"),
    Le: (operator.le, "le"),
}


def _bounds(metadata: list[Any]) -> list[_Bound] | None:
    """The numeric bounds in `metadata` (`Field(gt=0)`); None for any other constraint."""
    bounds: list[_Bound] = []
    for item in metadata:
        if type(item) not in _COMPARISONS:
            return None
        compare, attribute = _COMPARISONS[type(item)]
        bounds.append((compare, getattr(item, attribute)))
    return bounds


def _within(value: Any, bounds: list[_Bound]) -> Any:
    if value is _NOT_PLAIN or all(compare(value, limit) for compare, limit in bounds):
        return value
    return _NOT_PLAIN


def _text(value: Any) -> Any:
    return value if type(value) is str else _NOT_PLAIN


def _boolean(value: Any) -> Any:
    if type(value) is bool:
        return value
    return _BOOLEANS.get(value, _NOT_PLAIN) if type(value) is str else _NOT_PLAIN


def _whole(value: Any) -> Any:
    if type(value) is int:
        return value
    if type(value) is str and _digits(value, 18):
        return int(value)
    return _NOT_PLAIN


def _real(value: Any) -> Any:
    if type(value) is float:
        return value
    if type(value) is int and -_EXACT_FLOAT <= value <= _EXACT_FLOAT:
        return float(value)
    if type(value) is str and _decimal(value):
        return float(value)  # correctly rounded, as pydantic's parsing is
    return _NOT_PLAIN


# Text taken as a number (an environment variable's `8080`, `2.5`): digits, no leading zero, a dot between
# digits; signs, spaces, `_`, exponents and the rest: pydantic decides. (Not a regular expression: compiling
# two costs more at import than these tests ever do.)
def _digits(text: str, most: int) -> bool:
    return text.isascii() and text.isdigit() and len(text) <= most and (text == "0" or text[0] != "0")


def _decimal(text: str) -> bool:
    whole, dot, fraction = text.partition(".")
    if not _digits(whole, 15):
        return False
    return not dot or (fraction.isascii() and fraction.isdigit() and len(fraction) <= 15)


def _list_of_text(value: Any) -> Any:
    if type(value) is list and all(type(item) is str for item in value):
        return list(value)
    return _NOT_PLAIN


_SCALARS: dict[Any, _Check] = {str: _text, bool: _boolean, int: _whole, float: _real}
