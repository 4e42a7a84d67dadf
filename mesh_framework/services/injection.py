"""How a `@mesh_service` parameter of a tool or route is injected: the injection rule `@mesh_service` puts
on the class (tools/injection.py), and the service as the run of dependency slots it is built over."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._frozen import frozen
from ..specs import DependencySpec
from ..tools.injection import Injection, InjectionError
from .facade import implement, missing_required
from .plan import ServiceDefinitionError, ServicePlan, analyze_service, is_service, service_dependencies

__all__ = ["SERVICE_INJECTION", "ServiceInjection", "ServiceSlots"]


@frozen
class ServiceSlots:
    """A service's methods as dependency slots after the tool's declared ones (a `SlotGroup`)."""

    plan: ServicePlan

    @property
    def name(self) -> str:
        return self.plan.name

    def dependencies(self, offset: int) -> tuple[DependencySpec, ...]:
        return service_dependencies([(offset, self.plan)])

    def implement(self, slots: list[Any], offset: int) -> Any:
        return implement(self.plan, slots, offset)

    def missing(self, slots: Sequence[Any], offset: int) -> list[int]:
        return missing_required(self.plan, slots, offset) if self.plan.required else []

    def member(self, index: int) -> str:
        return self.plan.methods[index].name


class ServiceInjection:
    """The injection rule of `@mesh_service` classes: one dependency slot per method."""

    def injection(self, parameter: str, annotation: Any, cls: type) -> Injection | None:
        if not is_service(cls):  # a subclass of a service is not one
            return None
        try:
            return Injection("service", slots=ServiceSlots(analyze_service(cls)))
        except ServiceDefinitionError as exc:
            raise InjectionError(str(exc)) from None

    def constructor_refusal(self, cls: type) -> str | None:
        if not is_service(cls):
            return None
        return (
            f"{cls.__qualname__} is a service interface (@mesh_service): it is injected into tools and "
            "routes, not into constructors; take it as a parameter of the @mesh_tool or @mesh_route "
            "method that calls it"
        )


SERVICE_INJECTION = ServiceInjection()
