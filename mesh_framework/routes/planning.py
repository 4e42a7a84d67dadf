"""Route planning, once at load: every `@mesh_route` found, its signature analyzed with the tools' analyzer
and every problem reported together before the port is bound."""

from __future__ import annotations

import dataclasses
import inspect
import sys
import types
from collections.abc import Callable, Sequence
from dataclasses import field
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel
from starlette.requests import Request
from starlette.routing import compile_path

from .._frozen import frozen
from ..decorators import LLM_ATTR
from ..di.scan import class_members
from ..errors import WiringError
from ..schemas.policy import dependency_schema_problems
from ..specs import ToolSpec
from ..tools.signature import SignatureError, ToolSignature, analyze_signature
from ..tools.wrapper_registry import ROUTE_KEY_PREFIX
from .route_marks import ROUTE_ATTR, RouteSpec

__all__ = ["ROUTE_KEY_PREFIX", "RoutePlan", "plan_routes"]

_NOT_ON_ROUTES = {"context": "ToolContext", "job": "JobContext"}
# (route name, function, return type, streams) -> its LlmToolConfig; ConfigError when it cannot be used
LlmConfigOf = Callable[[str, Callable[..., Any], Any, bool], Any]


@frozen
class RoutePlan:
    key: str
    spec: RouteSpec
    tool_spec: ToolSpec  # what the route's wrapper holds: its name and dependency slots
    signature: ToolSignature
    where: str
    body: tuple[str, ...] = ()  # parameters read from the JSON body (pydantic models)
    lists: frozenset[str] = frozenset()  # query parameters that take every value given
    path_params: frozenset[str] = frozenset()
    owner: str | None = None  # provider name of the component owning the method
    attribute: str = ""
    beans: dict[str, str] = field(default_factory=dict)  # parameter -> provider name
    llm: Any = None  # LlmToolConfig of a `@mesh_llm` route
    request_params: frozenset[str] = frozenset()  # parameters typed starlette's Request

    @property
    def display(self) -> str:
        return f"{'|'.join(self.spec.methods)} {self.spec.path}"


def _core(annotation: Any) -> Any:
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            args = [a for a in get_args(annotation) if a is not type(None)]
            if len(args) != 1:
                return annotation
            annotation = args[0]
        else:
            return annotation


def _is_model(annotation: Any) -> bool:
    core = _core(annotation)
    return isinstance(core, type) and issubclass(core, BaseModel)


Found = tuple[RouteSpec, str, str | None, str]  # spec, module.qualname, owner provider, attribute


def _found(modules: Sequence[str], components: dict[type, str]) -> list[Found]:
    found: list[Found] = []
    for name in modules:
        module = sys.modules.get(name)
        for value in list(vars(module).values()) if module else []:
            spec = getattr(value, ROUTE_ATTR, None)
            if isinstance(spec, RouteSpec) and inspect.isfunction(value) and value.__module__ == name:
                found.append((spec, f"{name}.{value.__qualname__}", None, ""))
    for cls, provider in components.items():
        for attribute, member in class_members(cls):
            function: Any = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
            spec = getattr(function, ROUTE_ATTR, None)
            if isinstance(spec, RouteSpec):
                found.append((spec, f"{cls.__module__}.{cls.__qualname__}.{attribute}", provider, attribute))
    return found


def plan_routes(
    modules: Sequence[str],
    components: dict[type, str],
    *,
    can_inject: Callable[[Any], bool],
    bean_for: Callable[[Any], str],
    describe: Callable[[Any], str],
    llm_config: LlmConfigOf | None = None,
    schema_strict: bool = False,
) -> tuple[list[RoutePlan], list[str]]:
    """Every route of the scanned modules and components, and every problem found (`schema_strict` is
    `tools.schema_strict`: expected schemas' verdicts, schemas/policy.py)."""
    plans: list[RoutePlan] = []
    problems: list[str] = []
    for spec, qualified, owner, attribute in _found(modules, components):
        where = f"{describe(spec.function)}: route {'|'.join(spec.methods)} {spec.path}"
        try:
            plan = _plan((spec, qualified, owner, attribute), where, can_inject, bean_for, schema_strict)
            if llm_config is not None:
                plan = _with_llm(plan, llm_config, can_inject, bean_for)
            plans.append(plan)
        except SignatureError as exc:  # the tools' analyzer speaks of tools
            text = str(exc).replace("the tool declares", "the route declares")
            problems.append(f"{where}: {text.replace('@mesh_tool(', '@mesh_route(')}")
        except Exception as exc:  # a parameter type pydantic cannot validate, a bean that does not exist
            detail = getattr(exc, "problems", None)
            problems.extend(f"{where}: {p}" for p in detail) if detail else problems.append(f"{where}: {exc}")
    seen: dict[str, str] = {}
    for plan in plans:
        for name in plan.spec.names:
            if name in seen:
                problems.append(f"{plan.where}: {name} is already served by {seen[name]}")
            seen.setdefault(name, plan.key[len(ROUTE_KEY_PREFIX) :])
    return plans, problems


def _with_llm(
    plan: RoutePlan,
    llm_config: LlmConfigOf,
    can_inject: Callable[[Any], bool],
    bean_for: Callable[[Any], str],
) -> RoutePlan:
    """A route taking a MeshLlmAgent needs `@mesh_llm` (and the other way round); its settings resolved."""
    wants = any(p.kind == "llm" for p in plan.signature.injected)
    marked = getattr(plan.spec.function, LLM_ATTR, None) is not None
    if wants and not marked:
        raise SignatureError("takes a MeshLlmAgent but has no @mesh_llm(...); add it to choose a provider")
    if marked and not wants:
        raise SignatureError("has @mesh_llm but no parameter typed MeshLlmAgent to receive it")
    if not wants:
        return plan
    signature = plan.signature
    config = llm_config(
        plan.tool_spec.name or plan.key, plan.spec.function, signature.return_type, signature.streams
    )
    from ..llm.local_tools import plan_local_tools  # LLM modules: only for an app with a @mesh_llm route

    config, problems = plan_local_tools(config, can_inject=can_inject, bean_for=bean_for)
    if problems:
        raise WiringError(problems)
    return dataclasses.replace(plan, llm=config)


def _plan(
    found: Found,
    where: str,
    can_inject: Callable[[Any], bool],
    bean_for: Callable[[Any], str],
    schema_strict: bool = False,
) -> RoutePlan:
    spec, qualified, owner, attribute = found
    signature = analyze_signature(
        spec.function,
        skip_self=owner is not None,
        model_name=f"{spec.function.__name__}_route_arguments",
        dependency_count=len(spec.dependencies),
        bean_types=lambda annotation: annotation is Request or can_inject(annotation),
    )
    for param in signature.injected:
        if param.kind in _NOT_ON_ROUTES:
            raise SignatureError(
                f"parameter '{param.name}': a {_NOT_ON_ROUTES[param.kind]} is not injected into routes; "
                "call a tool that takes it through a McpMeshTool dependency"
            )
    fields = signature.arguments_model.model_fields
    body = tuple(name for name, info in fields.items() if _is_model(info.annotation))
    lists = frozenset(
        name
        for name, info in fields.items()
        if name not in body and get_origin(_core(info.annotation)) in (list, tuple, set, frozenset)
    )
    _, _, convertors = compile_path(spec.path)
    missing = [p for p in convertors if p not in fields]
    if missing:
        raise SignatureError(
            f"path parameter(s) {', '.join(repr(p) for p in missing)} have no function parameter of that name"
        )
    if body and any(m in ("GET", "HEAD") for m in spec.methods) and len(spec.methods) == 1:
        raise SignatureError(
            f"parameter '{body[0]}' is a JSON body, which a {spec.methods[0]} request does not carry; "
            "use methods=['POST'] (or PUT/PATCH)"
        )
    names = spec.names
    tool_spec = ToolSpec(
        function=spec.function,
        name=names[0],
        capability="",
        description=spec.description,
        dependencies=spec.dependencies
        + tuple(
            d for p in signature.injected if p.service is not None for d in p.service.dependencies(p.slot)
        ),
        kwargs={"route_names": names},  # read by mesh/route_registration.py
    )
    schema_problems = dependency_schema_problems(tool_spec.dependencies, cluster_strict=schema_strict)
    if schema_problems:
        raise SignatureError("; ".join(schema_problems))
    return RoutePlan(
        key=ROUTE_KEY_PREFIX + qualified,
        spec=spec,
        tool_spec=tool_spec,
        signature=signature,
        where=where,
        body=body,
        lists=lists,
        path_params=frozenset(convertors),
        owner=owner,
        attribute=attribute,
        beans={
            p.name: bean_for(p.bean_type)
            for p in signature.injected
            if p.kind == "bean" and p.bean_type is not Request
        },
        request_params=frozenset(
            p.name for p in signature.injected if p.kind == "bean" and p.bean_type is Request
        ),
    )
