"""`mesh_framework._frozen.frozen` makes the class `@dataclass(frozen=True, slots=True)` makes (and with
`slots=False`, `@dataclass(frozen=True)`'s): equal, hashed, shown, copied and replaced the same;
`record` the class a mutable `@dataclass` makes."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest

from mesh_framework._frozen import frozen, record

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


@record(slots=True)
class Mutable:
    name: str
    tags: list[str] = field(default_factory=list)


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


def _made_both(body: str, *, slots: bool = True) -> tuple[Any, Any]:
    """The class `body` defines (named `C`), made by `dataclass(frozen=True)` and by `frozen`, in this
    module (its names resolve the same)."""
    made = []
    for decorator in (f"dataclass(frozen=True, slots={slots})", f"frozen(slots={slots})"):
        namespace: dict[str, Any] = {}
        exec(f"@{decorator}\n{body}", globals(), namespace)
        made.append(namespace["C"])
    return made[0], made[1]


def _described(cls: Any) -> dict[str, Any]:
    init = cls.__init__
    return {
        "signature": str(inspect.signature(cls)),
        "doc": cls.__doc__,
        "init_annotations": init.__annotations__,
        "init_qualname": init.__qualname__,
        "init_defaults": repr(init.__defaults__),
        "init_kwdefaults": repr(init.__kwdefaults__),
        "init_module_globals": init.__globals__ is globals(),
        "setattr_qualname": cls.__setattr__.__qualname__,
        "match_args": cls.__match_args__,
        "frozen": cls.__dataclass_params__.frozen,
        "init": cls.__dataclass_params__.init,
    }


FIELD_KINDS = """
class C:
    name: str
    size: int = 0
    made: list[str] = field(default_factory=list)
    hidden: int = field(default=7, init=False)
    counted: list[int] = field(default_factory=lambda: [1], init=False)
    left: int = field(default=3, init=False, repr=False)
    _: dataclasses.KW_ONLY
    keyword: str = "k"
    needed: int
"""


@pytest.mark.parametrize("slots", [True, False])
def test_its_init_is_the_one_dataclass_writes(slots: bool) -> None:
    """Parameters, defaults (a factory's too), keyword-only fields, fields outside `__init__`, the class's
    description and `__post_init__` are `dataclass`'s."""
    stdlib, ours = _made_both(FIELD_KINDS, slots=slots)
    assert _described(ours) == _described(stdlib)
    for cls in (stdlib, ours):
        one = cls("a", needed=1)
        assert (one.name, one.size, one.made, one.hidden, one.counted, one.left, one.keyword, one.needed) == (
            "a",
            0,
            [],
            7,
            [1],
            3,
            "k",
            1,
        )
        assert cls("a", needed=1).made is not one.made  # a new list each time
        assert cls("a", 2, ["m"], keyword="x", needed=2).made == ["m"]
        with pytest.raises(TypeError):
            cls("a", 1, [], "keyword given by position", 2)
    stdlib, ours = _made_both(
        "class C:\n    name: str\n    def __post_init__(self) -> None:\n"
        "        object.__setattr__(self, 'name', self.name.upper())\n"
    )
    assert stdlib("a").name == ours("a").name == "A"


def test_a_field_named_self_a_documented_class_and_its_own_init() -> None:
    stdlib, ours = _made_both('class C:\n    """Said."""\n    self: int\n    other: int = 1\n')
    assert _described(ours) == _described(stdlib) and ours.__doc__ == "Said."
    assert (ours(1).self, ours(self=2).other) == (1, 1)
    stdlib, ours = _made_both(
        "class C:\n    name: str\n    def __init__(self, name: str) -> None:\n"
        "        object.__setattr__(self, 'name', name * 2)\n"
    )
    assert stdlib("a").name == ours("a").name == "aa"


def test_refused_classes_and_changes_are_refused_as_dataclass_refuses_them() -> None:
    for body in (
        "class C:\n    a: int = 0\n    b: int\n",
        "class C:\n    a: int\n    def __setattr__(self, n, v): pass\n",
    ):
        errors = []
        for decorator in ("dataclass(frozen=True, slots=True)", "frozen"):
            with pytest.raises(TypeError) as refused:
                exec(f"@{decorator}\n{body}", globals(), {})
            errors.append(str(refused.value))
        assert errors[0] == errors[1]
    for slots in (True, False):
        stdlib, ours = _made_both("class C:\n    a: int\n", slots=slots)
        refusals = []
        for cls in (stdlib, ours):
            one = cls(1)
            with pytest.raises(dataclasses.FrozenInstanceError) as refused:
                one.a = 2
            refusals.append(str(refused.value))
            with pytest.raises(dataclasses.FrozenInstanceError) as refused:
                del one.a
            refusals.append(str(refused.value))
        assert refusals[:2] == refusals[2:] == ["cannot assign to field 'a'", "cannot delete field 'a'"]


def test_it_subclasses_copies_and_pickles_as_a_frozen_dataclass() -> None:
    @dataclass(frozen=True)
    class Sub(Ours):
        extra: int = 0

    assert Sub("a", extra=1).extra == 1
    with pytest.raises(TypeError, match="cannot inherit non-frozen dataclass from a frozen one"):

        @dataclass
        class Thawed(Ours):
            extra: int = 0

    one = Unslotted("a", ["x"])
    assert pickle.loads(pickle.dumps(one)) == one and copy.copy(one) == one
    assert copy.copy(Ours("a", 2)) == Ours("a", 2)


def test_an_initvar_or_a_dataclass_base_is_left_to_dataclass() -> None:
    """`frozen` makes them as `dataclass(frozen=True)` does, whatever they need."""

    @frozen
    class WithInitVar:
        name: str
        scale: dataclasses.InitVar[int] = 1

        def __post_init__(self, scale: int) -> None:
            object.__setattr__(self, "name", self.name * scale)

    @dataclass(frozen=True)
    class Base:
        name: str

    @frozen(slots=False)
    class Derived(Base):
        size: int = 0

    assert WithInitVar("a", 2).name == "aa" and WithInitVar("a") == WithInitVar("a")
    assert Derived("a", 1) == Derived("a", 1) and repr(Derived("a")).endswith("Derived(name='a', size=0)")


def test_a_frozen_class_that_compares_no_field_equals_and_hashes_as_dataclass_s() -> None:
    body = "class C:\n    note: str = field(default='', compare=False)\n"
    for slots in (True, False):
        stdlib, ours = _made_both(body, slots=slots)
        assert (ours("a") == ours("b"), hash(ours("a")) == hash(ours("b"))) == (True, True)
        assert (stdlib("a") == stdlib("b"), hash(stdlib("a")) == hash(stdlib("b"))) == (True, True)


def _records_both(body: str, **options: bool) -> tuple[Any, Any]:
    """The class `body` defines (named `C`), made by `dataclass` and by `record` with `options`."""
    given = ", ".join(f"{name}={value}" for name, value in options.items())
    made = []
    for decorator in (f"dataclass({given})", f"record({given})"):
        namespace: dict[str, Any] = {}
        exec(f"@{decorator}\n{body}", globals(), namespace)
        made.append(namespace["C"])
    return made[0], made[1]


RECORD = """
class C:
    name: str
    size: float = 0
    tags: list[str] = field(default_factory=list)
    note: str = field(default="", compare=False)
    secret: str = field(default="", repr=False)
"""


def _same_record(cls: Any) -> dict[str, Any]:
    one = cls("a", 1, ["x"], note="n1", secret="s")
    nan = float("nan")
    changed = cls("a")
    changed.size, changed.tags = 2, ["y"]
    del changed.note
    return {
        "repr": repr(one),
        "eq_ignores_compare_false": one == cls("a", 1, ["x"], note="n2", secret="s"),
        "ne": one != cls("a", 2, ["x"]),
        "nan_same_object": cls("a", nan) == cls("a", nan),
        "not_equal_to_tuple": one.__eq__(("a", 1, ["x"], "n1", "s")),
        "hash": cls.__hash__,
        "changed": (changed.size, changed.tags, hasattr(changed, "note") and changed.note),
        "replace": repr(dataclasses.replace(one, size=5)),
        "asdict": dataclasses.asdict(one),
        "copy": copy.copy(one) == one,
        "deepcopy": copy.deepcopy(one) == one,
        "match_args": cls.__match_args__,
        "fields": [f.name for f in dataclasses.fields(cls)],
        "slots": getattr(cls, "__slots__", None),
        "params": (
            cls.__dataclass_params__.init,
            cls.__dataclass_params__.eq,
            cls.__dataclass_params__.frozen,
        ),
    }


@pytest.mark.parametrize("slots", [True, False])
def test_a_record_behaves_as_the_mutable_dataclass_it_stands_for(slots: bool) -> None:
    stdlib, ours = _records_both(RECORD, slots=slots)
    assert _same_record(ours) == _same_record(stdlib)
    assert _described(ours) == _described(stdlib)
    assert ours("a").tags is not ours("a").tags  # a new list each time
    with pytest.raises(TypeError, match="unhashable"):
        hash(ours("a"))
    stdlib, ours = _records_both("class C:\n    name: str\n    size: int = 0\n", slots=slots, eq=False)
    one = ours("a")
    assert one != ours("a") and one == one and hash(one) == object.__hash__(one)
    assert repr(one) == repr(stdlib("a")).replace(".stdlib", ".ours") == "C(name='a', size=0)"
    assert ours.__eq__ is object.__eq__ and ours.__hash__ is object.__hash__
    assert pickle.loads(pickle.dumps(Mutable("a", ["x"]))) == Mutable("a", ["x"])


def test_a_record_s_init_is_the_one_dataclass_writes() -> None:
    for slots in (True, False):
        stdlib, ours = _records_both(FIELD_KINDS, slots=slots)
        assert _described(ours) == _described(stdlib)
        assert _same_fields(ours("a", needed=1)) == _same_fields(stdlib("a", needed=1))
    stdlib, ours = _records_both(
        "class C:\n    name: str\n    def __post_init__(self) -> None:\n"
        "        self.name = self.name.upper()\n"
    )
    assert stdlib("a").name == ours("a").name == "A"


def _same_fields(one: Any) -> tuple[Any, ...]:
    return (one.name, one.size, one.made, one.hidden, one.counted, one.left, one.keyword, one.needed)


def test_a_record_keeps_its_own_methods_and_leaves_initvars_and_dataclass_bases_to_dataclass() -> None:
    @record
    class Own:
        name: str

        def __eq__(self, other: object) -> bool:
            return isinstance(other, Own) and other.name.lower() == self.name.lower()

        def __hash__(self) -> int:
            return hash(self.name.lower())

    assert Own("A") == Own("a") and hash(Own("A")) == hash(Own("a"))

    @record
    class WithInitVar:
        name: str
        scale: dataclasses.InitVar[int] = 1

        def __post_init__(self, scale: int) -> None:
            self.name *= scale

    @dataclass
    class Base:
        name: str

    @record(slots=True)
    class Derived(Base):
        size: int = 0

    assert WithInitVar("a", 2).name == "aa" and WithInitVar("a") == WithInitVar("a")
    assert Derived("a", 1) == Derived("a", 1) and repr(Derived("a")).endswith("Derived(name='a', size=0)")
