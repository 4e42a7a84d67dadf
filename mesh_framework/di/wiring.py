"""Constructor wiring by type annotation, with every problem found before anything is built.

A constructor parameter is satisfied by, in order: a `@config_properties` model of that type, a framework
bean of that type, or the one component assignable to it (a class, a base class or a Protocol it
implements). Several candidates are narrowed by `Annotated[T, Qualifier("name")]`, then by `primary=True`.
A parameter with a default that matches nothing keeps its default.
"""

from __future__ import annotations

import ast
import collections.abc
import inspect
import linecache
import os
import re
import textwrap
import typing
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, get_args, get_origin

from .._frozen import frozen
from ..errors import display_path
from ..specs import ComponentSpec, ConfigPropertiesSpec
from ..tools.injection import injection_rule

__all__ = ["Bean", "BeanCatalog", "Qualifier", "bean_name", "describe_location"]


@frozen
class Qualifier:
    """Names the component to inject when several match: `Annotated[Greeter, Qualifier("french")]`."""

    name: str


@frozen
class Bean:
    """Something the container can inject: its provider name on the container and its type."""

    name: str
    type: type
    kind: str  # "component" | "config" | "framework" | "list"
    primary: bool = False
    qualifier: str | None = None
    scope: str = "singleton"  # "prototype" | "call" for components and @bean methods
    order: int | None = None
    elements: tuple[Bean, ...] = ()  # kind "list": the beans of a `list[T]` parameter, in order
    lazy: bool = False  # a singleton made on first use rather than at start
    # an application's bean satisfies a Protocol structurally; an auto-configuration's only by its class, so
    # an installed package (or the framework's own features) never fills an app's Protocol by accident
    structural: bool = True

    def fits(self, target: Any) -> bool:
        """Whether this bean can be injected where `target` is asked for."""
        return is_assignable(self.type, target, structural=self.structural)


@frozen
class Requirement:
    """One resolved constructor parameter: inject bean `bean` (or keep the default when bean is None)."""

    parameter: str
    bean: Bean | None


def bean_name(cls: type) -> str:
    """`GreetingService` -> `greeting_service`: the provider name a component gets on the container."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", cls.__name__).lower()


def describe_location(function: Any, parameter: str | None = None) -> str:
    """`path/to/file.py:LINE` of a function, or of one of its parameters when it can be found."""
    function = inspect.unwrap(function)
    code = getattr(function, "__code__", None)
    if parameter is None and code is not None:  # at start-up for every prompt and LLM tool: no tokenizing
        path = inspect.getsourcefile(function)
        if (
            path is not None
            and not path.startswith("<")
            and (os.path.isfile(path) or linecache.getlines(path, function.__globals__))  # no reading a file
        ):
            return f"{display_path(path)}:{code.co_firstlineno}"
    try:
        path = inspect.getsourcefile(function) or "<unknown>"
        if path.startswith("<"):  # no file (Python 3.13 keeps the source of exec'd code as "<string>")
            raise OSError(path)
        lines, start = inspect.getsourcelines(function)
    except (OSError, TypeError):
        return getattr(function, "__qualname__", repr(function))
    line = start
    if parameter is not None:
        try:
            tree = ast.parse(textwrap.dedent("".join(lines)))
            node = tree.body[0]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs):
                    if arg.arg == parameter:
                        line = start + arg.lineno - 1
        except SyntaxError:
            pass
    return f"{display_path(path)}:{line}"


def _protocol_members(protocol: type) -> set[str]:
    members: set[str] = set()
    for base in protocol.__mro__:
        if base is object or base is typing.Protocol or base is typing.Generic:
            continue
        if getattr(base, "_is_protocol", False):
            members.update(n for n in vars(base) if not n.startswith("_"))
            members.update(getattr(base, "__annotations__", {}))
    return members


def is_assignable(candidate: type, target: Any, *, structural: bool = True) -> bool:
    """True if `candidate` can be injected where `target` is asked for.

    Protocols match structurally (every public member present) unless `structural=False`.
    """
    if not isinstance(target, type):
        return False
    if candidate is target or target in candidate.__mro__:
        return True
    if getattr(target, "_is_protocol", False):
        if not structural:
            return False
        members = _protocol_members(target)
        return bool(members) and all(hasattr(candidate, m) for m in members)
    try:
        return issubclass(candidate, target)
    except TypeError:
        return False


class BeanCatalog:
    """Everything injectable, and the rules that pick one bean for a parameter type."""

    def __init__(
        self,
        components: Sequence[ComponentSpec | Bean],
        config_properties: Sequence[ConfigPropertiesSpec],
        framework: Mapping[str, type],
    ) -> None:
        self.config = {
            spec.model: Bean(_config_name(spec), spec.model, "config") for spec in config_properties
        }
        self._framework = framework
        self._framework_listed: tuple[tuple[str, type], ...] = ()
        self._framework_beans: list[Bean] = []
        # components and @bean methods' beans, in definition order (di/definitions.py)
        self.components = [
            spec
            if isinstance(spec, Bean)
            else Bean(
                spec.name if spec.name != spec.cls.__name__ else bean_name(spec.cls),
                spec.cls,
                "component",
                spec.primary,
                spec.qualifier,
                spec.scope,
                spec.order,
            )
            for spec in components
        ]
        self.collections: dict[str, Bean] = {}  # the `list[T]` beans resolved so far, by provider name

    @property
    def framework(self) -> list[Bean]:
        """Read on each use: a lazily listed framework type appears once its module is imported (the beans
        are made again only when the listed types changed)."""
        listed = tuple(self._framework.items())
        if listed != self._framework_listed:
            self._framework_listed = listed
            self._framework_beans = [Bean(name, cls, "framework") for name, cls in listed]
        return self._framework_beans

    def can_inject(self, annotation: Any) -> bool:
        """True if `annotation` names a type the container owns (used to spot beans in tool signatures)."""
        core, _ = _split_annotation(annotation)
        element = _collection_element(core)
        if element is not None:  # a tool's `list[Plugin]` is injected when some bean is a Plugin
            return any(b.fits(element) for b in self.components)
        return isinstance(core, type) and (
            core in self.config
            or any(is_assignable(b.type, core, structural=False) for b in self.framework)
            or any(b.fits(core) for b in self.components)
        )

    def resolve(self, annotation: Any) -> Bean | str:
        """The bean for a parameter annotation, or a message saying why none fits."""
        core, qualifier = _split_annotation(annotation)
        element = _collection_element(core)
        if element is not None:
            return self.collection(element)
        if not isinstance(core, type):
            return f"type {annotation!r} is not a class the container can provide"
        if core in self.config:
            return self.config[core]
        for framework_bean in self.framework:  # framework beans match by class only, never structurally
            if is_assignable(framework_bean.type, core, structural=False):
                return framework_bean
        candidates = [b for b in self.components if b.fits(core)]
        if qualifier is not None:
            named = [b for b in candidates if qualifier in (b.qualifier, b.name, b.type.__name__)]
            if not named:
                found = ", ".join(b.type.__qualname__ for b in candidates) or "none"
                name = core.__qualname__
                return f"no component of type {name} is qualified '{qualifier}' (candidates: {found})"
            candidates = named
        if len(candidates) == 1:
            return candidates[0]
        if not candidates and (rule := injection_rule(core)) is not None:
            refusal = rule.constructor_refusal(core)  # a type only tools take (a service interface)
            if refusal is not None:
                return refusal
        if not candidates:
            return (
                f"no component of type {core.__qualname__}; mark a class that provides it with @component "
                "(and make sure its module is scanned), or give the parameter a default"
            )
        primaries = [b for b in candidates if b.primary]
        if len(primaries) == 1:
            return primaries[0]
        names = ", ".join(sorted(b.type.__qualname__ for b in candidates))
        return (
            f"{len(candidates)} components match type {core.__qualname__} ({names}); mark one "
            "@component(primary=True) or qualify the parameter with Annotated[T, Qualifier('name')]"
        )

    def collection(self, element: type) -> Bean:
        """The `list[element]` bean: every bean assignable to `element`, by `order` (unset: last), then
        name."""
        members = sorted(
            (b for b in self.components if b.fits(element)),
            key=lambda b: (b.order is None, b.order or 0, b.name),
        )
        name = f"list_of_{element.__module__.replace('.', '_')}_{bean_name(element)}"
        found = Bean(name, list, "list", elements=tuple(members))
        self.collections[name] = found
        return found

    def requirements(self, cls: type) -> tuple[list[Requirement], list[str]]:
        """What the constructor of `cls` needs, and the problems found (already formatted)."""
        init = cls.__init__  # type: ignore[misc]
        if init is object.__init__:
            return [], []
        return self.parameters(init, f"{cls.__qualname__}")

    def parameters(
        self, init: Any, owner: str, *, label: str = "__init__"
    ) -> tuple[list[Requirement], list[str]]:
        """What a constructor or `@bean` method (`init`, first parameter skipped) needs, and the problems."""
        cls_name = owner
        try:
            hints = typing.get_type_hints(init, include_extras=True)
        except NameError as exc:
            return [], [
                f"{describe_location(init)}: {cls_name}.{label} has an annotation that cannot be "
                f"resolved at run time ({exc}); import the type outside `if TYPE_CHECKING:`"
            ]
        requirements: list[Requirement] = []
        problems: list[str] = []
        for index, param in enumerate(inspect.signature(init).parameters.values()):
            if index == 0 or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            annotation = hints.get(param.name)
            has_default = param.default is not inspect.Parameter.empty
            if annotation is None:
                if not has_default:
                    problems.append(
                        f"{describe_location(init, param.name)}: parameter '{param.name}' of "
                        f"{cls_name} has no type annotation; annotate it so it can be injected"
                    )
                continue
            resolved = self.resolve(annotation)
            if isinstance(resolved, Bean):
                requirements.append(Requirement(param.name, resolved))
            elif not has_default:
                problems.append(
                    f"{describe_location(init, param.name)}: parameter '{param.name}' of "
                    f"{cls_name}: {resolved}"
                )
        return requirements, problems

    def find_cycles(self, graph: Mapping[type, list[Requirement]]) -> list[str]:
        """Every dependency cycle among components, each reported once with its path."""
        problems: list[str] = []
        reported: set[frozenset[type]] = set()
        state: dict[type, int] = {}

        def visit(cls: type, path: list[tuple[type, str]]) -> None:
            state[cls] = 1
            for requirement in graph.get(cls, []):
                bean = requirement.bean
                if bean is None or bean.kind != "component":
                    continue
                target = bean.type
                if state.get(target) == 1:
                    full = [*path, (cls, requirement.parameter)]
                    loop = full[next(i for i, (c, _p) in enumerate(full) if c is target) :]
                    members = frozenset(c for c, _ in loop)
                    if members not in reported:
                        reported.add(members)
                        text = (
                            " -> ".join(f"{c.__qualname__}({p})" for c, p in loop)
                            + f" -> {target.__qualname__}"
                        )
                        where = describe_location(cls.__init__, requirement.parameter)  # type: ignore[misc]
                        problems.append(
                            f"{where}: dependency cycle {text}; break it with a setter, an event or a lookup"
                        )
                elif state.get(target) is None:
                    visit(target, [*path, (cls, requirement.parameter)])
            state[cls] = 2

        for cls in graph:
            if state.get(cls) is None:
                visit(cls, [])
        return problems


def _config_name(spec: ConfigPropertiesSpec) -> str:
    return bean_name(spec.model)


def _collection_element(annotation: Any) -> type | None:
    """`Plugin` for `list[Plugin]` or `Sequence[Plugin]` when Plugin is a class, else None."""
    if get_origin(annotation) not in (list, collections.abc.Sequence):
        return None
    args = get_args(annotation)
    element = args[0] if len(args) == 1 else None
    if isinstance(element, type) and element.__module__ != "builtins":
        return element
    return None


def _split_annotation(annotation: Any) -> tuple[Any, str | None]:
    qualifier = None
    if get_origin(annotation) is Annotated:
        args = get_args(annotation)
        annotation = args[0]
        for extra in args[1:]:
            if isinstance(extra, Qualifier):
                qualifier = extra.name
    return annotation, qualifier
