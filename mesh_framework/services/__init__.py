"""Service interfaces: classes whose methods are bound to capabilities, injected into tools and routes by
type (`@mesh_service`, `@selector`)."""

from .declare import mesh_selector, mesh_service, selector
from .facade import ServiceResultError, ServiceUnavailable, implement, missing_required
from .plan import ServiceDefinitionError, ServicePlan, analyze_service, is_service, service_dependencies

__all__ = [
    "ServiceDefinitionError",
    "ServicePlan",
    "ServiceResultError",
    "ServiceUnavailable",
    "analyze_service",
    "implement",
    "is_service",
    "mesh_selector",
    "mesh_service",
    "missing_required",
    "selector",
    "service_dependencies",
]
