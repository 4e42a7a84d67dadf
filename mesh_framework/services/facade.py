"""The object a service parameter receives: an instance of a generated subclass of the service class,
whose methods read the tool's dependency slots (swapped in place as providers come and go), call the
provider with keyword arguments and validate its answer against the method's return annotation."""

from __future__ import annotations

import types
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import ValidationError

from ..errors import MeshError, ToolExecutionError
from .plan import MethodPlan, ServicePlan

__all__ = ["ServiceResultError", "ServiceUnavailable", "implement", "missing_required"]


class ServiceUnavailable(MeshError):
    """A service method has no provider (or the service is below its `min_available` floor);
    `capabilities` names what is missing."""

    def __init__(self, message: str, *, service: str, capabilities: Sequence[str]) -> None:
        super().__init__(message)
        self.service = service
        self.capabilities = tuple(capabilities)


class ServiceResultError(ToolExecutionError):
    """A provider answered a service method with a value that does not match the method's return type."""


def _missing(plan: ServicePlan, slots: Sequence[Any], offset: int) -> list[str]:
    return [m.selector.capability for i, m in enumerate(plan.methods) if slots[offset + i] is None]


def missing_required(plan: ServicePlan, slots: Sequence[Any], offset: int) -> list[int]:
    """The slots of the service's required methods that hold no provider."""
    return [offset + i for i in plan.required if slots[offset + i] is None]


def _problems(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors(include_url=False)[:5]:
        where = ".".join(str(p) for p in error["loc"])
        parts.append(f"{where}: {error['msg']}" if where else error["msg"])
    return "; ".join(parts)


def _type_name(annotation: Any) -> str:
    return getattr(annotation, "__name__", None) or repr(annotation)


def _method(plan: ServicePlan, method: MethodPlan, slots: list[Any], offset: int, index: int) -> Any:
    slot = offset + index
    capability = method.selector.capability
    service = plan.name
    validate, validate_json = method.validate, method.validate_json
    floor = plan.min_available
    total = len(plan.methods)
    names = method.parameters

    def unavailable() -> ServiceUnavailable:
        kind = "required" if method.required else "optional"
        return ServiceUnavailable(
            f"{service}.{method.name} cannot be called: no agent currently provides '{capability}' "
            f"({kind} method)",
            service=service,
            capabilities=[capability],
        )

    def below_floor() -> ServiceUnavailable | None:
        missing = _missing(plan, slots, offset)
        if total - len(missing) >= floor:
            return None
        return ServiceUnavailable(
            f"{service} is unavailable: {total - len(missing)}/{total} method(s) resolved, below its "
            f"min_available={floor}; no agent provides {', '.join(repr(c) for c in missing)}",
            service=service,
            capabilities=missing,
        )

    def invalid(proxy: Any, exc: ValidationError) -> ServiceResultError:
        return ServiceResultError(
            f"{service}.{method.name}: the answer of '{capability}' does not match "
            f"{_type_name(method.return_type)}: {_problems(exc)}",
            tool=str(getattr(proxy, "function_name", "") or capability),
            agent=str(getattr(proxy, "agent_id", "") or ""),
        )

    async def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        proxy = slots[slot]
        if proxy is None:
            raise unavailable()
        if floor and (short := below_floor()) is not None:
            raise short
        if args:
            bound = dict(zip(names, args, strict=False))
            if len(args) > len(names) or not bound.keys().isdisjoint(kwargs):
                raise TypeError(
                    f"{service}.{method.name}() takes {len(names)} positional argument(s) "
                    f"({', '.join(names)}), each given once"
                )
            kwargs.update(bound)
        value = await proxy.call_tool(proxy.function_name, kwargs)  # what `proxy(**kwargs)` does
        if validate is None:
            return value
        try:
            return validate(value)
        except ValidationError as exc:
            if isinstance(value, str) and validate_json is not None:
                try:  # a provider that answers JSON as text (no structuredContent)
                    return validate_json(value)
                except ValidationError:
                    pass
            raise invalid(proxy, exc) from None

    call.__name__ = call.__qualname__ = method.name
    return call


def implement(plan: ServicePlan, slots: list[Any], offset: int) -> Any:
    """An instance of a subclass of `plan.cls` bound to `slots[offset : offset + len(plan.methods)]`."""
    namespace: dict[str, Any] = {
        m.name: _method(plan, m, slots, offset, i) for i, m in enumerate(plan.methods)
    }
    namespace["__repr__"] = lambda self: f"<{plan.name} service ({len(plan.methods)} methods)>"
    namespace["__module__"] = plan.cls.__module__

    def fill(ns: dict[str, Any]) -> None:
        ns.update(namespace)

    implementation: Callable[..., Any] = types.new_class(
        f"{plan.cls.__name__}Implementation", (plan.cls,), {}, fill
    )
    return object.__new__(implementation)  # type: ignore[arg-type]
