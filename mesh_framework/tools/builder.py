"""Turns scanned tools into plans (analysis done once, at load) and plans into wrappers (at build)."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from dataclasses import field
from typing import Any

from .._frozen import frozen
from ..di.call_scope import CallScopes
from ..schemas.policy import check_tool_schemas, dependency_schema_problems
from ..specs import ToolSpec
from .signature import SignatureError, ToolSignature, analyze_signature
from .wrapper import MeshToolWrapper
from .wrapper_registry import MeshToolWrapperRegistry

__all__ = ["ToolPlan", "build_wrappers", "plan_tool"]


@frozen
class ToolPlan:
    key: str
    name: str
    description: str
    spec: ToolSpec
    signature: ToolSignature
    timeout: float | None
    owner: str | None = None  # provider name of the component owning the method
    attribute: str = ""
    beans: dict[str, str] = field(default_factory=dict)  # parameter -> provider name
    # parameter -> (framework bean's name, key): `bean[key]` is injected (an A2aClient: its peer's client)
    keyed: dict[str, tuple[str, str]] = field(default_factory=dict)


def plan_tool(
    key: str,
    spec: ToolSpec,
    *,
    default_timeout: float | None,
    is_method: bool,
    can_inject: Callable[[Any], bool],
    bean_for: Callable[[Any], str],
    owner: str | None = None,
    attribute: str = "",
    schema_strict: bool = False,
) -> ToolPlan:
    """Analyze one tool. Raises SignatureError (message without location) when it cannot be served;
    `schema_strict` is `tools.schema_strict` (schemas/policy.py)."""
    function = spec.function
    name = spec.name or function.__name__
    signature = analyze_signature(
        function,
        skip_self=is_method,
        model_name=f"{name}_arguments",
        dependency_count=len(spec.dependencies),
        bean_types=can_inject,
        input_schema=spec.input_schema,
    )
    if signature.streams and (spec.background or spec.task):
        flag = "background=True" if spec.background else "task=True"
        raise SignatureError(
            f"returns Stream[str] and is {flag}: a stream answers the caller as it runs, a job answers "
            f"later; drop {flag} or return str"
        )
    beans = {p.name: bean_for(p.bean_type) for p in signature.injected if p.kind == "bean" and p.bean is None}
    keyed = {p.name: (p.bean, p.key or p.name) for p in signature.injected if p.bean is not None}
    added = tuple(
        d for p in signature.injected if p.service is not None for d in p.service.dependencies(p.slot)
    )
    if added:  # on the wire, a service's methods are ordinary dependencies after the declared ones
        spec = dataclasses.replace(spec, dependencies=spec.dependencies + added)
    _check_expected_types(spec, schema_strict)
    problems = check_tool_schemas(
        name,
        signature.input_schema,
        signature.output_adapter,
        streams=signature.streams,
        cluster_strict=schema_strict,
        tool_strict=spec.output_schema_strict,
    )
    if problems:
        raise SignatureError("; ".join(problems))
    description = spec.description if spec.description is not None else inspect.getdoc(function) or ""
    return ToolPlan(
        key=key,
        name=name,
        description=description,
        spec=spec,
        signature=signature,
        timeout=spec.timeout if spec.timeout is not None else default_timeout,
        owner=owner,
        attribute=attribute,
        beans=beans,
        keyed=keyed,
    )


def _check_expected_types(spec: ToolSpec, schema_strict: bool) -> None:
    """Every dependency's `expected_type` has a schema whose verdict lets the agent start."""
    problems = dependency_schema_problems(spec.dependencies, cluster_strict=schema_strict)
    if problems:
        raise SignatureError("; ".join(problems))


def build_wrappers(
    plans: list[ToolPlan],
    registry: MeshToolWrapperRegistry,
    provide: Callable[[str], Any],
    initial_proxy: Callable[[Any], Any],
    *,
    mask_errors: bool = False,
    scopes: CallScopes | None = None,
) -> MeshToolWrapperRegistry:
    """Create one wrapper per plan, resolving method owners and injected beans through `provide`;
    `mask_errors` is `tools.mask_error_details`; `scopes` opens the call scope of the tools that take a
    call-scoped bean (their beans are made per call)."""
    for plan in plans:
        if plan.owner is not None:
            target = getattr(provide(plan.owner), plan.attribute)
        else:
            target = plan.spec.function
        options: dict[str, Any] = {
            "key": plan.key,
            "name": plan.name,
            "spec": plan.spec,
            "signature": plan.signature,
            "target": target,
            "description": plan.description,
            "timeout": plan.timeout,
            "mask_errors": mask_errors,
        }
        scoped = {p: b for p, b in plan.beans.items() if scopes is not None and b in scopes.names}
        if scoped and scopes is not None:  # a tool taking a call-scoped bean: only then its wrapper's module
            from .call_scoped import CallScopedToolWrapper

            wrapper: MeshToolWrapper = CallScopedToolWrapper(scoped=scoped, scopes=scopes, **options)
        else:
            wrapper = MeshToolWrapper(**options)
        beans = {param: provide(bean) for param, bean in plan.beans.items() if param not in scoped}
        beans.update({param: provide(bean)[key] for param, (bean, key) in plan.keyed.items()})
        wrapper.bind_beans(beans)
        for dependency in plan.spec.dependencies:
            wrapper.update_dependency(dependency.index, initial_proxy(dependency))
        registry.add(wrapper)
    return registry
