"""`frozen`: `@dataclass(frozen=True, slots=True)` for less than it costs to define.

Python 3.11's `dataclass` compiles every method it adds from source, one `exec` each: a frozen one six
(`__init__`, `__setattr__`, `__delattr__`, `__eq__`, `__hash__`, `__repr__`), some 0.45 ms a class, and
the framework defines about a hundred of them while it starts. `frozen` lets `dataclass` compile the first
three and gives the class `__eq__`, `__hash__` and `__repr__` from this module, written once, that read the
class's fields as `dataclass`'s would: equal (same class), hashed and shown by the fields it compares,
hashes and shows. Methods the class writes itself are kept. The class is a dataclass to `fields()`,
`replace()`, `asdict()` and `is_dataclass()`, and frozen."""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

__all__ = ["frozen"]

_T = TypeVar("_T")


def _getter(names: list[str]) -> Callable[[Any], Any]:
    """The tuple of those attributes (one attribute's value alone: compared and hashed the same)."""
    return attrgetter(*names) if names else lambda _self: ()


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        compared = self._frozen_compared
        return compared(self) == compared(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self._frozen_hashed(self))


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._frozen_shown)
    return f"{self.__class__.__qualname__}({shown})"


@overload
def frozen(cls: type[_T], /) -> type[_T]: ...
@overload
def frozen(*, slots: bool = True) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def frozen(cls: type[_T] | None = None, /, *, slots: bool = True) -> Any:
    """`@dataclass(frozen=True, slots=True)`: the same class (see the module's docstring);
    `@frozen(slots=False)` is `@dataclass(frozen=True)`'s."""
    if cls is None:
        return lambda cls: _frozen(cls, slots)
    return _frozen(cls, slots)


def _frozen(cls: type[_T], slots: bool) -> type[_T]:
    own = set(cls.__dict__)
    made: Any = dataclasses.dataclass(cls, frozen=True, slots=slots, eq=False, repr=False)
    fields = dataclasses.fields(made)
    made._frozen_compared = _getter([f.name for f in fields if f.compare])
    made._frozen_hashed = _getter([f.name for f in fields if (f.compare if f.hash is None else f.hash)])
    made._frozen_shown = tuple(f.name for f in fields if f.repr)
    if "__eq__" not in own:
        made.__eq__ = _eq
        if "__hash__" not in own:
            made.__hash__ = _hash
    if "__repr__" not in own:
        made.__repr__ = _repr
    return made  # type: ignore[no-any-return]
