"""Following a dotted settings key through the pydantic models that declare it: which keys are secrets,
and which known name a key nothing reads was meant to be."""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from .._frozen import frozen
from .sources import normalize_key

__all__ = ["Step", "declared_fields", "did_you_mean", "field_names", "follow", "model_at", "unknown_key"]

_SEQUENCES = (list, tuple, set, frozenset, Sequence)
_MAPPINGS = (dict, Mapping)


@frozen(slots=False)
class Step:
    """One part of a key: the types its value may have (unions unfolded) and the metadata declared on it."""

    annotations: tuple[Any, ...]
    metadata: tuple[Any, ...]


def follow(model: type[BaseModel], parts: Sequence[str]) -> list[Step]:
    """A step for each part of the key that the models declare: field names, list indexes, mapping keys.

    Fewer steps than parts: the key leaves what the models declare (an unknown field, free-form data)."""
    steps: list[Step] = []
    current: tuple[Any, ...] = (model,)
    for part in parts:
        annotations: list[Any] = []
        metadata: list[Any] = []
        for annotation in current:
            found = _child(annotation, part)
            if found is not None:
                annotations += found[0]
                metadata += found[1]
        if not annotations:
            break
        steps.append(Step(tuple(annotations), tuple(metadata)))
        current = tuple(annotations)
    return steps


def model_at(model: type[BaseModel], parts: Sequence[str]) -> type[BaseModel] | None:
    """The model whose fields the keys directly below `parts` are (`model` itself for no parts)."""
    if not parts:
        return model
    steps = follow(model, parts)
    if len(steps) < len(parts):
        return None
    return next((a for a in steps[-1].annotations if _is_model(a)), None)


def declared_fields(model: type[BaseModel]) -> dict[str, FieldInfo]:
    """`model.model_fields` with every annotation resolved. A field may name its model as text that pydantic
    resolves when it builds the validator (`"_entries.StaticToken"`: a model created on first use, see
    `config/entries.py`); such a model is rebuilt first, which resolves the text."""
    if model not in _RESOLVED:
        if any(_names_later(field.annotation) for field in model.model_fields.values()):
            model.model_rebuild(raise_errors=False)  # fails only where pydantic would: left as it is
        if not any(_names_later(field.annotation) for field in model.model_fields.values()):
            _RESOLVED.add(model)
    return model.model_fields


_RESOLVED: set[type[BaseModel]] = set()


def _names_later(annotation: Any) -> bool:
    """Whether `annotation` holds a forward reference (a type named as text)."""
    if isinstance(annotation, (str, typing.ForwardRef)):
        return True
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Literal:
        return False
    if origin is typing.Annotated:
        args = args[:1]  # the rest is metadata
    return any(_names_later(arg) for arg in args)


def field_names(model: type[BaseModel]) -> list[str]:
    """The keys a model takes: field names and (normalized) aliases."""
    names: list[str] = []
    for name, field in declared_fields(model).items():
        names.append(name)
        if field.alias:
            names.append(normalize_key(field.alias))
    return names


def unknown_key(key: str, origin: str, owner: str, known: Sequence[str]) -> str:
    """The problem of a key nothing reads: `tools.timout (from F:2): 'tools' has no setting 'timout'; did
    you mean 'timeout'?` (`owner` names the section or model that lacks it)."""
    name = key.rpartition(".")[2]
    return f"{key} (from {origin}): {owner} has no setting '{name}'{did_you_mean(name, known)}"


def did_you_mean(word: str, known: Sequence[str]) -> str:
    """`; did you mean 'closest'?`, or nothing when no known name is close."""
    import difflib  # a problem to report (1 ms to import, a start-up cost otherwise)

    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.7)
    return f"; did you mean '{close[0]}'?" if close else ""


def _is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _field(model: type[BaseModel], part: str) -> FieldInfo | None:
    fields = declared_fields(model)
    field = fields.get(part)
    if field is not None:
        return field
    key = normalize_key(part)
    return next((f for n, f in fields.items() if key in (n, normalize_key(f.alias or n))), None)


def _child(annotation: Any, part: str) -> tuple[list[Any], list[Any]] | None:
    if _is_model(annotation):
        field = _field(annotation, part)
        if field is None:
            return None
        annotations, metadata = _unfold(field.annotation)
        return annotations, [*field.metadata, *metadata]
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in _SEQUENCES and args and part.isdigit():
        return _unfold(args[0])
    if origin in _MAPPINGS and len(args) == 2:
        return _unfold(args[1])
    return None


def _unfold(annotation: Any) -> tuple[list[Any], list[Any]]:
    """The types a value of `annotation` may have (`Annotated` and unions unwrapped), and their metadata."""
    metadata: list[Any] = []
    while typing.get_origin(annotation) is typing.Annotated:
        annotation, *extra = typing.get_args(annotation)
        metadata += extra
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        annotations: list[Any] = []
        for arg in typing.get_args(annotation):
            if arg is not type(None):
                inner, inner_metadata = _unfold(arg)
                annotations += inner
                metadata += inner_metadata
        return annotations, metadata
    return [annotation], metadata
