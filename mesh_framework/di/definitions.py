"""Bean definitions: the scanned components, the beans of `@configuration` classes and of auto-configurations,
each with its conditions evaluated. Which beans an agent has is decided here, before anything is built.

Order: the application's beans (scan order), then the auto-configurations' (by entry point name); within each,
beans without `@conditional_on_missing_bean` first, so such a condition sees every bean it could yield to.
"""

from __future__ import annotations

import collections.abc
import inspect
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import field, replace
from typing import Any, get_args, get_origin

from .._frozen import frozen, record
from ..specs import ComponentSpec
from .auto_configuration import AutoConfiguration
from .conditions import Condition, ConditionContext, OnProperty, Outcome, conditions_of
from .configuration import BEAN_ATTR, IMPORTS_ATTR, BeanMethodSpec, imported_configurations
from .wiring import Bean, bean_name, describe_location, is_assignable

__all__ = ["BeanDefinition", "ConfigurationDefinition", "Selection", "bean_entries", "select_beans"]

_GENERATORS = {
    collections.abc.Iterator,
    collections.abc.Generator,
    collections.abc.Iterable,
    collections.abc.AsyncIterator,
    collections.abc.AsyncGenerator,
    collections.abc.AsyncIterable,
}


@frozen(slots=False)
class ConfigurationDefinition:
    """A `@configuration` class: its provider name on the container, where it comes from, its conditions."""

    name: str
    cls: type
    origin: str  # "configuration" | "auto-configuration"
    package: str | None = None
    auto_name: str | None = None  # the entry point's name, for an auto-configuration


@frozen(slots=False)
class BeanDefinition:
    """One bean: a component class or a `@bean` method, and how the container makes and scopes it."""

    name: str
    type: type
    factory: Callable[..., Any]  # the class, or the function of the @bean method
    scope: str = "singleton"
    order: int | None = None
    primary: bool = False
    qualifier: str | None = None
    origin: str = "scan"  # "scan" | "configuration" | "auto-configuration"
    configuration: ConfigurationDefinition | None = None
    outcomes: tuple[Outcome, ...] = ()
    defined: bool = True
    lazy: bool = False  # a singleton made on first use (@bean(lazy=True))

    @property
    def is_method(self) -> bool:
        return self.configuration is not None

    @property
    def is_async(self) -> bool:
        return inspect.iscoroutinefunction(self.factory) or inspect.isasyncgenfunction(self.factory)

    @property
    def is_generator(self) -> bool:
        return inspect.isgeneratorfunction(self.factory) or inspect.isasyncgenfunction(self.factory)

    @property
    def location(self) -> str:
        return describe_location(self.factory)

    @property
    def display(self) -> str:
        """`GreetingService` or `ClientsConfig.http_client()`, as problems and `mesh beans` name it."""
        if self.configuration is not None:
            return f"{self.configuration.cls.__qualname__}.{self.factory.__name__}()"
        return self.type.__qualname__


@record
class Selection:
    """The beans defined (in definition order), every candidate with its outcomes, and the problems."""

    beans: list[BeanDefinition] = field(default_factory=list)
    candidates: list[BeanDefinition] = field(default_factory=list)
    configurations: list[ConfigurationDefinition] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    property_keys: set[str] = field(default_factory=set)  # settings read by conditions


@record
class _Candidate:
    definition: BeanDefinition
    conditions: tuple[Condition, ...]
    group: int  # 0: the application's, 1: auto-configurations'
    outcomes: list[Outcome] = field(default_factory=list)


class _EarlyOutcomes:
    """Each early condition evaluated once: it reads the settings and the app, never the bean it is on nor
    the beans defined, so a class's conditions, which every bean of the class (and of the classes it
    imports) carries, are not evaluated again for each of them."""

    def __init__(self, context: ConditionContext) -> None:
        self.context = context
        self._known: dict[int, tuple[Condition, Outcome]] = {}

    def __call__(self, condition: Condition, own_type: type) -> Outcome:
        known = self._known.get(id(condition))
        if known is not None:
            return known[1]
        outcome = condition.evaluate(self.context, own_type)
        self._known[id(condition)] = (condition, outcome)  # the condition kept: its id stays its own
        return outcome


def select_beans(
    components: Sequence[ComponentSpec],
    configurations: Sequence[type],
    auto: Sequence[AutoConfiguration],
    settings: Any,
    *,
    loaded: Any = None,
    scan: Any = None,
    folders: Sequence[Any] = (),
) -> Selection:
    """Evaluate every condition and return the beans the agent defines. `loaded`, `scan` and `folders` are
    what `@conditional` tests read of the app (di/conditions.ConditionContext)."""
    selection = Selection()
    context = ConditionContext(
        settings, list(settings.profiles), is_assignable, loaded=loaded, scan=scan, folders=tuple(folders)
    )
    early_outcome = _EarlyOutcomes(context)
    candidates: list[_Candidate] = []
    for spec in components:
        name = spec.name if spec.name != spec.cls.__name__ else bean_name(spec.cls)
        definition = BeanDefinition(
            name, spec.cls, spec.cls, spec.scope, spec.order, spec.primary, spec.qualifier, "scan"
        )
        candidates.append(_Candidate(definition, conditions_of(spec.cls), 0))
    sources: list[tuple[type, ConfigurationDefinition, int, tuple[Condition, ...]]] = [
        (cls, ConfigurationDefinition(bean_name(cls), cls, "configuration"), 0, ()) for cls in configurations
    ]
    sources += [
        (
            a.cls,
            ConfigurationDefinition(bean_name(a.cls), a.cls, "auto-configuration", a.package, a.name),
            1,
            (),
        )
        for a in auto
    ]
    while sources:
        cls, config, group, inherited = sources.pop(0)
        selection.configurations.append(config)
        class_conditions = (*inherited, *conditions_of(cls))
        if cls.__dict__.get(IMPORTS_ATTR):
            found = _imported(cls, config, group, class_conditions, early=early_outcome, selection=selection)
            sources[:0] = found
        for method, marked in _bean_methods(cls):
            bean_type, problem = _bean_type(cls, method)
            if problem:
                selection.problems.append(problem)
                continue
            assert bean_type is not None
            definition = BeanDefinition(
                marked.name or method.__name__,
                bean_type,
                method,
                marked.scope,
                marked.order,
                marked.primary,
                marked.qualifier,
                config.origin,
                config,
                lazy=marked.lazy,
            )
            candidates.append(_Candidate(definition, (*class_conditions, *conditions_of(method)), group))
    for candidate in candidates:
        selection.property_keys.update(c.key for c in candidate.conditions if isinstance(c, OnProperty))
    early = [c for c in candidates if not _evaluate(c, early_outcome, late=False)]
    passed = [c for c in candidates if c not in early]
    chosen: set[int] = set()
    for group in (0, 1):
        members = [c for c in passed if c.group == group]
        for candidate in sorted(members, key=lambda c: any(x.late for x in c.conditions)):
            if _evaluate(candidate, context, late=True):
                context.defined.append((candidate.definition.name, candidate.definition.type))
                chosen.add(id(candidate))
    for candidate in candidates:
        defined = id(candidate) in chosen
        final = _with(candidate.definition, tuple(candidate.outcomes), defined)
        selection.candidates.append(final)
        if defined:
            selection.beans.append(final)
    return selection


def _imported(
    cls: type,
    config: ConfigurationDefinition,
    group: int,
    conditions: tuple[Condition, ...],
    *,
    early: _EarlyOutcomes,
    selection: Selection,
) -> list[tuple[type, ConfigurationDefinition, int, tuple[Condition, ...]]]:
    """The configuration classes `cls` imports, loaded only when its early conditions match; otherwise the
    class is listed, not defined, with the outcomes that left it out (its imports are never loaded)."""
    outcomes = [early(c, cls) for c in conditions if not c.late]
    if not all(o.matched for o in outcomes):
        gate = BeanDefinition(
            config.name, cls, cls, origin=config.origin, configuration=config, outcomes=tuple(outcomes)
        )
        selection.candidates.append(replace(gate, defined=False))
        return []
    try:
        imported = imported_configurations(cls)
    except (ImportError, ValueError, AttributeError) as exc:
        selection.problems.append(
            f"{describe_location(cls)}: @imports of {cls.__qualname__} cannot be loaded "
            f"({type(exc).__name__}: {exc})"
        )
        return []
    origin, package, auto_name = config.origin, config.package, config.auto_name
    return [
        (t, ConfigurationDefinition(bean_name(t), t, origin, package, auto_name), group, conditions)
        for t in imported
    ]


def _with(definition: BeanDefinition, outcomes: tuple[Outcome, ...], defined: bool) -> BeanDefinition:
    return replace(definition, outcomes=outcomes, defined=defined)


def _evaluate(candidate: _Candidate, context: ConditionContext | _EarlyOutcomes, *, late: bool) -> bool:
    """Evaluate the candidate's early (`context`: their outcomes, each evaluated once) or late conditions;
    True when all of them match."""
    matched = True
    for condition in candidate.conditions:
        if condition.late != late:
            continue
        outcome = (
            context(condition, candidate.definition.type)
            if isinstance(context, _EarlyOutcomes)
            else condition.evaluate(context, candidate.definition.type)
        )
        candidate.outcomes.append(outcome)
        matched = matched and outcome.matched
    return matched


def _bean_methods(cls: type) -> list[tuple[Callable[..., Any], BeanMethodSpec]]:
    """The `@bean` methods of a configuration class (its bases' too), in the order written."""
    found: dict[str, tuple[Callable[..., Any], BeanMethodSpec]] = {}
    for base in reversed(cls.__mro__):
        for attribute, value in vars(base).items():
            spec = getattr(value, BEAN_ATTR, None)
            if isinstance(spec, BeanMethodSpec):
                found[attribute] = (value, spec)
            elif attribute in found:
                del found[attribute]  # overridden without @bean
    return list(found.values())


def _bean_type(cls: type, method: Callable[..., Any]) -> tuple[type | None, str | None]:
    """The type of the bean a method makes: its return annotation (a generator's yielded type)."""

    def where() -> str:  # located only for a problem: finding the line costs more than the rest
        return f"{describe_location(method)}: @bean method {cls.__qualname__}.{method.__name__}"

    try:
        annotation = _return_annotation(method)
    except NameError as exc:
        return None, (
            f"{where()} has an annotation that cannot be resolved at run time ({exc}); import the type "
            "outside `if TYPE_CHECKING:`"
        )
    if annotation is None or annotation is type(None):
        return None, f"{where()} has no return annotation; annotate it with the bean's type (`-> MyClient`)"
    if (inspect.isgeneratorfunction(method) or inspect.isasyncgenfunction(method)) and get_origin(
        annotation
    ) in _GENERATORS:
        annotation = get_args(annotation)[0] if get_args(annotation) else Any
    core = annotation if isinstance(annotation, type) else get_origin(annotation)
    if not isinstance(core, type) or core is object:
        return None, f"{where()} returns {annotation!r}, not a class the container can inject; name a class"
    return core, None


def _return_annotation(method: Callable[..., Any]) -> Any:
    """The method's return annotation resolved as `typing.get_type_hints` resolves it (in the method's
    module), without resolving the parameters' annotations, which the bean's type does not depend on."""
    annotations = getattr(method, "__annotations__", None) or {}
    if "return" not in annotations:
        return None
    holder = types.SimpleNamespace(__annotations__={"return": annotations["return"]})
    globalns = getattr(inspect.unwrap(method), "__globals__", {})
    return typing.get_type_hints(holder, globalns=globalns).get("return")


def bean_entries(definitions: Sequence[BeanDefinition]) -> list[Bean]:
    """The catalog's entries of the beans defined (what a parameter type is matched against)."""
    return [
        Bean(
            d.name,
            d.type,
            "component",
            d.primary,
            d.qualifier,
            d.scope,
            d.order,
            lazy=d.lazy,
            structural=d.origin != "auto-configuration",
        )
        for d in definitions
    ]
