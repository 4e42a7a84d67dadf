"""Conditions on beans, as Spring Boot's: `@profile`, `@conditional_on_property`,
`@conditional_on_missing_bean`, `@conditional_on_class`, and `@conditional` for a test of one's own (Spring's
`@Conditional`), which reads the app being loaded: its settings, scanned tools and modules. Each decorator
adds one condition to a component
class, a `@configuration` class or a `@bean` method, above or below the decorator that makes it a bean; a
bean is defined when all its conditions (and its configuration class's) match. Each outcome says why, for
`mesh beans`.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Sequence
from dataclasses import field
from typing import Any, TypeVar

from pydantic import BaseModel

from .._frozen import frozen, record

__all__ = [
    "CONDITIONS_ATTR",
    "Condition",
    "ConditionContext",
    "OnApp",
    "OnClass",
    "OnMissingBean",
    "OnProperty",
    "Outcome",
    "Profile",
    "conditional",
    "conditional_on_class",
    "conditional_on_missing_bean",
    "conditional_on_property",
    "conditions_of",
    "profile",
    "property_value",
]

CONDITIONS_ATTR = "__mesh_conditions__"
T = TypeVar("T")
_MISSING = object()


@frozen
class Outcome:
    """One condition evaluated: whether it matched, and why (`mesh beans` prints both)."""

    condition: str
    matched: bool
    reason: str


@record
class ConditionContext:
    """What conditions read: the layered settings, the active profiles, and the beans defined so far
    (`defined`: their types; `assignable(candidate, target)` the container's matching rule). While an app
    loads, also `loaded` (the settings with their origins, config/loader.LoadedSettings), `scan` (its
    scanned components, tools and modules, di/scan.ScanResult) and `folders` (its config folder and package
    folder, when known)."""

    settings: Any
    profiles: Sequence[str]
    assignable: Callable[[type, Any], bool]
    defined: list[tuple[str, type]] = field(default_factory=list)
    loaded: Any = None
    scan: Any = None
    folders: tuple[Any, ...] = ()


class Condition:
    """A condition; `late` ones (on missing beans) are evaluated after every other bean is known."""

    late = False

    def describe(self) -> str:
        raise NotImplementedError

    def evaluate(self, context: ConditionContext, own_type: type | None) -> Outcome:
        raise NotImplementedError


@frozen(slots=False)
class Profile(Condition):
    expressions: tuple[str, ...]

    def describe(self) -> str:
        return f"@profile({', '.join(repr(e) for e in self.expressions)})"

    def evaluate(self, context: ConditionContext, own_type: type | None) -> Outcome:
        active = list(context.profiles)
        shown = ", ".join(active) or "none"
        for expression in self.expressions:
            negated = expression.startswith("!")
            name = expression[1:] if negated else expression
            if (name in active) != negated:
                verb = "is not" if negated else "is"
                return Outcome(self.describe(), True, f"profile '{name}' {verb} active (active: {shown})")
        return Outcome(self.describe(), False, f"no expression matches the active profiles ({shown})")


@frozen(slots=False)
class OnProperty(Condition):
    key: str
    having_value: Any = None
    match_if_missing: bool = False

    def describe(self) -> str:
        extra = f", having_value={self.having_value!r}" if self.having_value is not None else ""
        extra += ", match_if_missing=True" if self.match_if_missing else ""
        return f"@conditional_on_property({self.key!r}{extra})"

    def evaluate(self, context: ConditionContext, own_type: type | None) -> Outcome:
        value = property_value(context.settings, self.key)
        if value is _MISSING or value is None:
            verb = "matches" if self.match_if_missing else "does not match"
            return Outcome(
                self.describe(), self.match_if_missing, f"{self.key} is not set ({verb} if missing)"
            )
        text = _text(value)
        if self.having_value is None:
            matched = text != "false"
            return Outcome(self.describe(), matched, f"{self.key} = {text}" + ("" if matched else " (false)"))
        wanted = _text(self.having_value)
        matched = text == wanted
        return Outcome(
            self.describe(), matched, f"{self.key} = {text}" + ("" if matched else f", not {wanted}")
        )


@frozen(slots=False)
class OnMissingBean(Condition):
    types: tuple[type | str, ...] = ()
    late = True

    def describe(self) -> str:
        return f"@conditional_on_missing_bean({', '.join(_type_name(t) for t in self.types)})"

    def evaluate(self, context: ConditionContext, own_type: type | None) -> Outcome:
        wanted = self.types or ((own_type,) if own_type is not None else ())
        for named in wanted:
            # a class named by its dotted name, as Spring's `type=`: none of it is imported to check (a bean
            # of it exists only when its module is loaded already)
            target = _loaded_class(named) if isinstance(named, str) else named
            if target is None:
                continue
            found = [name for name, cls in context.defined if context.assignable(cls, target)]
            if found:
                return Outcome(self.describe(), False, f"found bean '{found[0]}' of type {_type_name(named)}")
        names = ", ".join(_type_name(t) for t in wanted)
        return Outcome(self.describe(), True, f"no bean of type {names}")


def _type_name(target: type | str) -> str:
    return target if isinstance(target, str) else target.__qualname__


def _loaded_class(name: str) -> type | None:
    """The class a dotted name (`openai.AsyncOpenAI`) names, when its module is imported; None otherwise."""
    module_name, _, attribute = name.rpartition(".")
    found = getattr(sys.modules.get(module_name), attribute, None)
    return found if isinstance(found, type) else None


@frozen(slots=False)
class OnClass(Condition):
    modules: tuple[str, ...]

    def describe(self) -> str:
        return f"@conditional_on_class({', '.join(repr(m) for m in self.modules)})"

    def evaluate(self, context: ConditionContext, own_type: type | None) -> Outcome:
        for module in self.modules:
            if not _importable(module):
                return Outcome(self.describe(), False, f"module '{module}' is not installed")
        return Outcome(self.describe(), True, f"{', '.join(self.modules)} importable")


@frozen(slots=False)
class OnApp(Condition):
    """A test of one's own: `test(context)` answers True/False, or (matched, reason)."""

    test: Callable[[ConditionContext], bool | tuple[bool, str]]
    description: str

    def describe(self) -> str:
        return f"@conditional({self.description!r})"

    def evaluate(self, context: ConditionContext, own_type: type | None) -> Outcome:
        answer = self.test(context)
        if isinstance(answer, tuple):
            matched, reason = answer
            return Outcome(self.describe(), bool(matched), reason)
        reason = self.description if answer else f"not: {self.description}"
        return Outcome(self.describe(), bool(answer), reason)


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or an odd name
        return False


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).strip().lower()


def property_value(settings: Any, key: str) -> Any:
    """The value of a dotted key in the layered settings as they are: a framework section's field, or a key of
    a section nothing models (files, profiles, `MESH_<SECTION>__<KEY>`); `_MISSING` when absent."""
    node: Any = settings
    for part in key.split("."):
        if isinstance(node, BaseModel):
            if part in type(node).model_fields:
                node = getattr(node, part)
                continue
            node = (node.model_extra or {}).get(part, _MISSING)
        elif isinstance(node, dict):
            node = node.get(part, _MISSING)
        else:
            return _MISSING
        if node is _MISSING:
            return _MISSING
    return node


def conditions_of(target: Any) -> tuple[Condition, ...]:
    """The conditions set on a class (its own, not its bases') or a function, in the order written."""
    return tuple(reversed(conditions_of_raw(target)))  # decorators apply bottom-up


def _adding(condition: Condition) -> Callable[[T], T]:
    def mark(target: T) -> T:
        if not callable(target):
            raise TypeError(f"{condition.describe()} applies to classes and @bean methods, not {target!r}")
        setattr(target, CONDITIONS_ATTR, (*conditions_of_raw(target), condition))
        return target

    return mark


def conditions_of_raw(target: Any) -> tuple[Condition, ...]:
    if isinstance(target, type):
        return tuple(target.__dict__.get(CONDITIONS_ATTR, ()))
    return tuple(getattr(target, CONDITIONS_ATTR, ()))


def profile(*expressions: str) -> Callable[[T], T]:
    """Define the bean only when one of the profiles is active (`"dev"`), or not active (`"!dev"`)."""
    if not expressions or not all(isinstance(e, str) and e.strip("!") for e in expressions):
        raise ValueError(f"@profile takes profile names ('dev', or '!dev' for not dev), got {expressions!r}")
    return _adding(Profile(tuple(expressions)))


def conditional_on_property(
    key: str, *, having_value: Any = None, match_if_missing: bool = False
) -> Callable[[T], T]:
    """Define the bean only when the setting `key` (dotted, any section) is set and not false, or equals
    `having_value` (compared as text, case-insensitively); `match_if_missing` decides when it is unset."""
    if not key or not all(part.isidentifier() for part in key.split(".")):
        raise ValueError(
            f"@conditional_on_property: {key!r} is not a dotted settings key, e.g. 'greeter.enabled'"
        )
    return _adding(OnProperty(key, having_value, match_if_missing))


def conditional_on_missing_bean(*types: type | str) -> Callable[[T], T]:
    """Define the bean only when no bean of these types (default: the bean's own type) is defined already:
    the application's beans come before auto-configurations', so an application's bean wins. A type may be
    named by its dotted name (`"openai.AsyncOpenAI"`), so that checking imports nothing."""
    if not all(isinstance(t, type) or (isinstance(t, str) and "." in t.strip(".")) for t in types):
        raise TypeError(
            f"@conditional_on_missing_bean takes classes or dotted class names ('openai.AsyncOpenAI'), "
            f"got {types!r}"
        )
    return _adding(OnMissingBean(tuple(types)))


def conditional_on_class(*modules: str) -> Callable[[T], T]:
    """Define the bean only when every module named can be imported (found without importing it)."""
    if not modules or not all(isinstance(m, str) and m for m in modules):
        raise ValueError(f"@conditional_on_class takes module names, got {modules!r}")
    return _adding(OnClass(tuple(modules)))


def conditional(
    test: Callable[[ConditionContext], bool | tuple[bool, str]], description: str
) -> Callable[[T], T]:
    """Define the bean only when `test(context)` is true (`context`: a ConditionContext; the test may answer
    `(matched, reason)` to say why). `description` names what it tests, for `mesh beans`."""
    if not callable(test) or not isinstance(description, str) or not description:
        raise TypeError("@conditional takes a test (a function of the ConditionContext) and a description")
    return _adding(OnApp(test, description))
