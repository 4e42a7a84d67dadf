"""OpenAPI services as an auto-configuration: an app whose settings list services under `mcp.openapi` has
their documents read while it loads and their operations served as tools (openapi/beans.py, loading
`openapi-pydantic`); any other loads nothing of this package but this module."""

from __future__ import annotations

from ..di.conditions import ConditionContext, conditional
from ..di.configuration import configuration, imports

__all__ = ["OpenApiAutoConfiguration", "serves_openapi"]


def serves_openapi(context: ConditionContext) -> tuple[bool, str]:
    services = context.settings.mcp.openapi
    if services:
        return True, "mcp.openapi lists " + ", ".join(service.name for service in services)
    return False, "mcp.openapi is empty"


@configuration
@conditional(serves_openapi, "an OpenAPI service in mcp.openapi")
@imports("mesh_framework.openapi.beans:OpenApiBeans")
class OpenApiAutoConfiguration:
    """Gates the OpenAPI tools' beans (openapi/beans.py) on the app listing services."""
