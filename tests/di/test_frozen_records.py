"""`mesh_framework._frozen.frozen` makes the class `@dataclass(frozen=True, slots=True)` makes (and with
`slots=False`, `@dataclass(frozen=True)`'s): equal, hashed, shown, copied and replaced the same."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest

from mesh_framework._frozen import frozen

pytestmark = pytest.mark.timeout(30)


@dataclass(frozen=True, slots=True)
class Stdlib:
    name: str
    size: int = 0
    tags: tuple[str, ...] = ()
    note: str = field(default="", compare=False)
    secret: str = field(default="", repr=False)


@frozen
class Ours:
    name: str
    size: int = 0
    tags: tuple[str, ...] = ()
    note: str = field(default="", compare=False)
    secret: str = field(default="", repr=False)


@frozen(slots=False)
class Unslotted:
    name: str
    extra: list[str] = field(default_factory=list, hash=False)


@frozen
class OwnMethods:
    name: str

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OwnMethods) and other.name.lower() == self.name.lower()

    def __hash__(self) -> int:
        return hash(self.name.lower())

    def __repr__(self) -> str:
        return f"<{self.name}>"


def _same(cls: Any) -> dict[str, Any]:
    one = cls("a", 1, ("x",), note="n1", secret="s")
    return {
        "repr": repr(one).removeprefix(cls.__qualname__),
        "eq_ignores_compare_false": one == cls("a", 1, ("x",), note="n2", secret="s"),
        "ne": one != cls("a", 2, ("x",)),
        "hash_equal": hash(one) == hash(cls("a", 1, ("x",), note="other", secret="s")),
        "not_equal_to_tuple": one == ("a", 1, ("x",), "", "s"),
        "replace": repr(dataclasses.replace(one, size=5)).removeprefix(cls.__qualname__),
        "asdict": dataclasses.asdict(one),
        "pickle": pickle.loads(pickle.dumps(one)) == one,
        "deepcopy": copy.deepcopy(one) == one,
        "match_args": cls.__match_args__,
        "fields": [f.name for f in dataclasses.fields(cls)],
        "slots": cls.__slots__,
    }


def test_a_frozen_class_behaves_as_the_dataclass_it_stands_for() -> None:
    assert _same(Ours) == _same(Stdlib)
    assert repr(Ours("a")) == "Ours(name='a', size=0, tags=(), note='')"
    assert Ours("a").__eq__(Stdlib("a")) is NotImplemented
    assert {Ours("a", 1), Ours("a", 1, note="x")} == {Ours("a", 1)}


def test_its_fields_cannot_be_set_nor_deleted() -> None:
    one = Ours("a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.name = "b"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del one.size  # type: ignore[misc]
    # another attribute: refused as the dataclass refuses it (3.11's raises TypeError, not AttributeError)
    for cls in (Stdlib, Ours):
        with pytest.raises((AttributeError, TypeError)) as refused:
            cls("a").other = 1  # type: ignore[attr-defined]
        if cls is Stdlib:
            expected = refused.type
    assert refused.type is expected


def test_without_slots_and_with_fields_not_hashed() -> None:
    one = Unslotted("a", ["x"])
    assert not hasattr(Unslotted, "__slots__") and one.__dict__ == {"name": "a", "extra": ["x"]}
    assert hash(one) == hash(Unslotted("a", ["y"])) and one != Unslotted("a", ["y"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.name = "b"  # type: ignore[misc]


def test_methods_the_class_writes_are_kept() -> None:
    assert OwnMethods("A") == OwnMethods("a") and hash(OwnMethods("A")) == hash(OwnMethods("a"))
    assert repr(OwnMethods("A")) == "<A>"
