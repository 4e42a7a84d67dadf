"""`frozen`: `@dataclass(frozen=True, slots=True)` for less than it costs to define.

Python 3.11's `dataclass` compiles every method it adds from source, one `exec` each: a frozen one six
(`__init__`, `__setattr__`, `__delattr__`, `__eq__`, `__hash__`, `__repr__`), some 0.45 ms a class, and
the framework defines about a hundred of them while it starts. `frozen` compiles `__init__` alone (one
`exec` of the text `dataclass` writes, in the same closure over the same names). The others are written
once, here: `__eq__`, `__hash__` and `__repr__` read the class's fields as `dataclass`'s would (equal when
of the same class, hashed and shown by the fields it compares, hashes and shows); `__setattr__` and
`__delattr__` are closures refusing a field's change with `dataclass`'s error; a slotted class pickles
through `__getstate__`/`__setstate__` as `dataclass` gives a frozen one. About 0.1 ms a class. Methods
the class writes itself are kept. The class is a dataclass to `fields()`, `replace()`, `asdict()` and
`is_dataclass()`, and frozen. A class `dataclass` treats otherwise (an `InitVar`, a dataclass among its
bases) is made by `dataclass(frozen=True)` itself, with only `__eq__`, `__hash__` and `__repr__` from
here.

`record` is the same for a mutable `@dataclass` (`slots`, `eq` as its): `__init__` compiled alone (fields
set by assignment), `__eq__` and `__repr__` from here, unhashable when it compares (`__hash__` None), as
`dataclass` makes it; a class with an `InitVar` or a dataclass base is left to `dataclass` whole."""

from __future__ import annotations

import dataclasses
import inspect
import reprlib
import sys
from collections.abc import Callable
from dataclasses import MISSING, FrozenInstanceError
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform, overload

__all__ = ["frozen", "record"]

_T = TypeVar("_T")


class _HasDefaultFactory:
    """The default of a parameter whose field has a default factory (shown as `dataclass` shows it)."""

    def __repr__(self) -> str:
        return "<factory>"


_HAS_DEFAULT_FACTORY = _HasDefaultFactory()


def _getter(names: list[str]) -> Callable[[Any], Any]:
    """The tuple of those attributes (one attribute's value alone: compared and hashed the same)."""
    return attrgetter(*names) if names else lambda _self: ()


def _tuple_getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of those attributes, always a tuple (compared as `dataclass`'s `__eq__` compares: a
    value that is not equal to itself, NaN, is equal in a tuple when it is the same object)."""
    if len(names) == 1:
        get = attrgetter(names[0])
        return lambda self: (get(self),)
    return _getter(names)


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        compared = self._frozen_compared
        return compared(self) == compared(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self._frozen_hashed(self))


def _record_eq_by_field(self: Any, other: Any) -> Any:
    """A mutable `dataclass`'s `__eq__` from Python 3.13 (up to 3.12 it compares tuples, as `_eq` over a
    `_tuple_getter`): the same object is equal; else field by field, the first false result (or the
    last)."""
    if self is other:
        return True
    if other.__class__ is self.__class__:
        result: Any = True
        for get in self._frozen_each:
            result = get(self) == get(other)
            if not result:
                return result
        return result
    return NotImplemented


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
    if _as_dataclass_does(cls):
        made: Any = dataclasses.dataclass(cls, frozen=True, slots=slots, eq=False, repr=False)
    else:
        made = _made(cls, own, slots)
    fields = dataclasses.fields(made)
    # static: a getter that is a function (no field compared) is not bound to the instance it reads
    made._frozen_compared = staticmethod(_getter([f.name for f in fields if f.compare]))
    made._frozen_hashed = staticmethod(
        _getter([f.name for f in fields if (f.compare if f.hash is None else f.hash)])
    )
    made._frozen_shown = tuple(f.name for f in fields if f.repr)
    if "__eq__" not in own:
        made.__eq__ = _eq
        if "__hash__" not in own:
            made.__hash__ = _hash
    if "__repr__" not in own:
        made.__repr__ = _repr
    return made  # type: ignore[no-any-return]


@overload
def record(cls: type[_T], /) -> type[_T]: ...
@overload
def record(*, slots: bool = False, eq: bool = True) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def record(cls: type[_T] | None = None, /, *, slots: bool = False, eq: bool = True) -> Any:
    """`@dataclass` (mutable), `@record(slots=True, eq=False)` `@dataclass(slots=True, eq=False)`'s: the
    same class for less (see the module's docstring)."""
    if cls is None:
        return lambda cls: _record(cls, slots, eq)
    return _record(cls, slots, eq)


def _record(cls: type[_T], slots: bool, eq: bool) -> type[_T]:
    if _as_dataclass_does(cls):
        return dataclasses.dataclass(cls, slots=slots, eq=eq)
    own = set(cls.__dict__)
    made = _made(cls, own, slots, frozen=False)
    fields = dataclasses.fields(made)
    made._frozen_shown = tuple(f.name for f in fields if f.repr)
    if "__repr__" not in own:
        made.__repr__ = _repr
    if eq:
        compared = [f.name for f in fields if f.compare]
        made._frozen_compared = staticmethod(_tuple_getter(compared))
        made._frozen_each = tuple(attrgetter(name) for name in compared)
        if "__eq__" not in own:
            made.__eq__ = _record_eq_by_field if sys.version_info >= (3, 13) else _eq
        if "__hash__" not in own:  # `dataclass(eq=True)`'s: a mutable class that compares is unhashable
            made.__hash__ = None
    params = made.__dataclass_params__
    params.repr, params.eq, params.frozen = True, eq, False
    return made  # type: ignore[no-any-return]


def _as_dataclass_does(cls: type) -> bool:
    """Whether the class is left to `dataclass(frozen=True)`: an `InitVar` among its annotations, or a
    dataclass among its bases (whose frozenness `dataclass` checks against this one's)."""
    initvar = any(
        isinstance(a, dataclasses.InitVar)
        or a is dataclasses.InitVar
        or (isinstance(a, str) and "InitVar" in a)
        for a in inspect.get_annotations(cls).values()
    )
    return initvar or any(hasattr(base, "__dataclass_fields__") for base in cls.__mro__[1:])


def _made(cls: type, own: set[str], slots: bool, frozen: bool = True) -> Any:
    """`dataclass(frozen=True, eq=False, repr=False)` (or not frozen), with `__init__` the one method
    compiled."""
    for name in ("__setattr__", "__delattr__") if frozen else ():
        if name in own:
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
    documented = bool(cls.__doc__)
    if not documented:  # `dataclass` would describe it by a signature without `__init__`: described below
        cls.__doc__ = cls.__name__
    made: Any = dataclasses.dataclass(cls, init=False, eq=False, repr=False, slots=slots)
    fields = dataclasses.fields(made)
    if "__init__" not in own:
        made.__init__ = _init(made, fields, slots, frozen)
    params = made.__dataclass_params__
    params.init = True
    if not frozen:
        _describe(made, documented)
        return made
    # over the class as `dataclass` saw it: a slotted class is a copy of it, made after the methods, so
    # an attribute other than a field is refused by `super()` with a TypeError, as `dataclass`'s refuse it
    made.__setattr__, made.__delattr__ = _refusals(cls, frozenset(f.name for f in fields))
    if slots:  # pickled and copied without assigning to the fields
        if "__getstate__" not in own:
            made.__getstate__ = _getstate
        if "__setstate__" not in own:
            made.__setstate__ = _setstate
    params.frozen = True
    _describe(made, documented)
    return made


def _describe(made: Any, documented: bool) -> None:
    """An undocumented class described as `dataclass` describes it: by its signature."""
    if not documented:
        try:
            made.__doc__ = made.__name__ + str(inspect.signature(made)).replace(" -> None", "")
        except (TypeError, ValueError):
            made.__doc__ = made.__name__


def _init(
    cls: type, fields: tuple[dataclasses.Field[Any], ...], slots: bool, frozen: bool = True
) -> Callable[..., None]:
    """The `__init__` `dataclass` writes, compiled once: a frozen class's fields set through `object`, a
    mutable one's assigned."""
    self_name = "__dataclass_self__" if any(f.name == "self" for f in fields) else "self"
    names: dict[str, Any] = {}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    seen_default: str | None = None  # the last parameter with a default
    for f in fields:
        name = f.name
        names[f"_type_{name}"] = f.type
        default = ""
        value: str | None = name if f.init else None
        if f.default_factory is not MISSING:
            names[f"_dflt_{name}"] = f.default_factory
            default = "=_HAS_DEFAULT_FACTORY"
            value = (
                f"_dflt_{name}() if {name} is _HAS_DEFAULT_FACTORY else {name}"
                if f.init
                else f"_dflt_{name}()"
            )
        elif f.default is not MISSING:
            names[f"_dflt_{name}"] = f.default
            default = f"=_dflt_{name}"
            if not f.init and slots:  # no class attribute holds it
                value = f"_dflt_{name}"
        if f.init:
            if not f.kw_only:
                if default:
                    seen_default = name
                elif seen_default is not None:
                    after = f" {seen_default!r}" if sys.version_info >= (3, 13) else ""
                    raise TypeError(f"non-default argument {name!r} follows default argument{after}")
            (keyword if f.kw_only else positional).append(f"{name}:_type_{name}{default}")
        if value is not None:
            body.append(
                f"  __dataclass_builtins_object__.__setattr__({self_name},{name!r},{value})"
                if frozen
                else f"  {self_name}.{name}={value}"
            )
    if hasattr(cls, "__post_init__"):
        body.append(f"  {self_name}.__post_init__()")
    names.update(
        _HAS_DEFAULT_FACTORY=_HAS_DEFAULT_FACTORY, __dataclass_builtins_object__=object, _return_type=None
    )
    parameters = ",".join([self_name, *positional, *(["*", *keyword] if keyword else [])])
    text = (
        f"def __create_fn__({', '.join(names)}):\n"
        f" def __init__({parameters}) -> _return_type:\n" + ("\n".join(body) or "  pass") + "\n"
        " return __init__"
    )
    module = sys.modules.get(cls.__module__)
    namespace: dict[str, Any] = {}
    # compiled without this module's `from __future__ import annotations`: the annotations are the
    # fields' types, as `dataclass`'s are
    code = compile(text, "<string>", "exec", dont_inherit=True)
    exec(code, module.__dict__ if module is not None else {}, namespace)
    init: Any = namespace["__create_fn__"](**names)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init  # type: ignore[no-any-return]


def _refusals(cls: type, names: frozenset[str]) -> tuple[Callable[..., None], Callable[..., None]]:
    """`__setattr__` and `__delattr__` refusing a change to a field, or any change to an instance of
    `cls` itself (a subclass's own attributes may change), with `dataclass`'s messages."""
    owner: Any = cls

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is owner or name in names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(owner, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is owner or name in names:
            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(owner, self).__delattr__(name)

    __setattr__.__qualname__ = f"{cls.__qualname__}.__setattr__"
    __delattr__.__qualname__ = f"{cls.__qualname__}.__delattr__"
    return __setattr__, __delattr__


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, f.name) for f in dataclasses.fields(self)]


def _setstate(self: Any, state: list[Any]) -> None:
    for f, value in zip(dataclasses.fields(self), state, strict=False):
        object.__setattr__(self, f.name, value)
