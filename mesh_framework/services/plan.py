"""A service interface analyzed once, at start-up: its methods in wire order (sorted by name), each with
its selector and a validator built from its return annotation. Problems name the class and method."""

from __future__ import annotations

import inspect
import re
import types
import typing
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Callable, Iterable
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, TypeAdapter
from pydantic.errors import PydanticSchemaGenerationError, PydanticUserError

from .._frozen import frozen
from ..errors import MeshError, display_path
from ..schemas.canonical import SchemaTypeError, canonical_schema
from ..specs import DependencySpec, Selector
from .metadata import SELECTOR_ATTR, SERVICE_ATTR, SelectorMark, ServiceMark

__all__ = [
    "MethodPlan",
    "ServiceDefinitionError",
    "ServicePlan",
    "analyze_service",
    "capability_problem",
    "is_service",
    "service_dependencies",
]

_STREAMS = (AsyncIterator, AsyncIterable, AsyncGenerator)
_SEGMENT = re.compile(r"^[a-zA-Z][a-zA-Z0-9_-]*$")


class ServiceDefinitionError(MeshError):
    """A `@mesh_service` class that cannot be implemented; the message names the class and method."""


@frozen
class MethodPlan:
    name: str
    selector: Selector
    required: bool
    parameters: tuple[str, ...]  # names a positional argument binds to
    return_type: Any  # None: no annotation to validate against
    validate: Callable[[Any], Any] | None
    validate_json: Callable[[str | bytes], Any] | None


@frozen
class ServicePlan:
    cls: type
    name: str
    min_available: int
    methods: tuple[MethodPlan, ...]  # sorted by name: the order of their dependency slots
    required: tuple[int, ...] = ()  # positions of the required methods


def is_service(candidate: Any) -> bool:
    return isinstance(candidate, type) and isinstance(candidate.__dict__.get(SERVICE_ATTR), ServiceMark)


def _where(function: Any) -> str:
    code = getattr(function, "__code__", None)
    return f" ({display_path(code.co_filename)}:{code.co_firstlineno})" if code is not None else ""


def capability_problem(capability: str) -> str | None:
    """Why `capability` is not a capability name (dot-separated segments of `[a-zA-Z][a-zA-Z0-9_-]*`)."""
    bad = [s for s in capability.split(".") if not _SEGMENT.match(s)]
    if not bad:
        return None
    return (
        f"capability {capability!r} is not a valid name: it is dot-separated segments, each a letter "
        "followed by letters, digits, '_' or '-' (e.g. 'media.caption')"
    )


def _unwrap_optional(annotation: Any) -> Any:
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _derived_expected_type(annotation: Any) -> Any:
    """A return annotation as the expected type of schema matching, as MCP Mesh derives it: only when its
    schema constrains something (properties, required fields or items at its root, not a bare union), so
    `-> dict` or `-> str` filters no provider out."""
    try:
        schema = canonical_schema(annotation).canonical
    except SchemaTypeError:
        return None
    if "anyOf" in schema:
        return None
    constrains = bool(schema.get("properties") or schema.get("required") or schema.get("items"))
    return annotation if constrains else None


def _public_functions(cls: type) -> list[tuple[str, Any]]:
    found: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        if klass is object or klass.__module__ == "typing":
            continue
        for name, value in vars(klass).items():
            if name.startswith("_"):
                continue
            member = value.__func__ if isinstance(value, staticmethod | classmethod) else value
            if inspect.isfunction(member) or isinstance(member, property):
                found[name] = member
    return sorted(found.items())


def _method(service: str, name: str, function: Any) -> MethodPlan:
    label = f"{service}.{name}{_where(function)}"
    mark = getattr(function, SELECTOR_ATTR, None)
    if not isinstance(mark, SelectorMark):
        raise ServiceDefinitionError(
            f"{label} has no @selector: every public method of a service is bound to a capability; "
            f"add @selector('capability.name') or rename it _{name}"
        )
    if not inspect.iscoroutinefunction(function):
        raise ServiceDefinitionError(f"{label} is not async: write it as `async def {name}(self, ...)`")
    problem = capability_problem(mark.capability)
    if problem:
        raise ServiceDefinitionError(f"{label}: {problem}")
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except NameError as exc:
        raise ServiceDefinitionError(
            f"{label}: an annotation cannot be resolved at run time ({exc}); import the type outside "
            "`if TYPE_CHECKING:`"
        ) from None
    parameters = tuple(
        p.name
        for p in list(inspect.signature(function).parameters.values())[1:]
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    )
    returned = hints.get("return", inspect.Signature.empty)
    core = _unwrap_optional(returned)
    if get_origin(core) in _STREAMS or core in _STREAMS:
        raise ServiceDefinitionError(
            f"{label} returns a stream; service methods return one value. Take a McpMeshTool dependency "
            "and call its stream() instead"
        )
    return_type = None if returned in (inspect.Signature.empty, Any) else returned
    validate = validate_json = None
    if return_type is not None:
        try:
            adapter: TypeAdapter[Any] = TypeAdapter(return_type)
        except (PydanticSchemaGenerationError, PydanticUserError, TypeError) as exc:
            raise ServiceDefinitionError(
                f"{label}: its return annotation {return_type!r} cannot be validated: {exc}"
            ) from None
        validator = (
            return_type.__pydantic_validator__  # a model's own validator: the same rules, a step shorter
            if isinstance(return_type, type) and issubclass(return_type, BaseModel)
            else adapter.validator
        )
        validate, validate_json = validator.validate_python, validator.validate_json
    expected = mark.expected_type
    if expected is None and mark.match_mode is not None and return_type is not None:
        expected = _derived_expected_type(_unwrap_optional(return_type))
    try:
        selector = Selector(
            mark.capability,
            tags=mark.tags,
            version=mark.version,
            expected_type=expected,
            match_mode=mark.match_mode if expected is not None else None,
        )
    except (TypeError, ValueError) as exc:
        raise ServiceDefinitionError(f"{label}: {exc}") from None
    return MethodPlan(
        name=name,
        selector=selector,
        required=mark.required,
        parameters=parameters,
        return_type=return_type,
        validate=validate,
        validate_json=validate_json,
    )


_PLANS: dict[type, ServicePlan] = {}


def analyze_service(cls: type) -> ServicePlan:
    """The plan of a `@mesh_service` class (built once per class). Raises ServiceDefinitionError."""
    plan = _PLANS.get(cls)
    if plan is not None:
        return plan
    mark: ServiceMark = cls.__dict__[SERVICE_ATTR]
    name = cls.__qualname__
    methods: list[MethodPlan] = []
    for attribute, member in _public_functions(cls):
        if isinstance(member, property):
            raise ServiceDefinitionError(
                f"{name}.{attribute} is a property; a service has only `async` methods marked @selector"
            )
        methods.append(_method(name, attribute, member))
    if not methods:
        raise ServiceDefinitionError(
            f"{name}{_where(cls)} has no methods: declare `async def` stubs marked @selector('capability')"
        )
    if mark.min_available > len(methods):
        raise ServiceDefinitionError(
            f"{name}: min_available={mark.min_available} is more than its {len(methods)} method(s)"
        )
    plan = ServicePlan(
        cls=cls,
        name=name,
        min_available=mark.min_available,
        methods=tuple(methods),
        required=tuple(i for i, m in enumerate(methods) if m.required),
    )
    _PLANS[cls] = plan
    return plan


def service_dependencies(services: Iterable[tuple[int, ServicePlan]]) -> tuple[DependencySpec, ...]:
    """The dependencies of services at their first slots: each service's methods in name order."""
    return tuple(
        DependencySpec(first + i, method.selector, required=method.required)
        for first, plan in services
        for i, method in enumerate(plan.methods)
    )
