"""Web routes as an auto-configuration: an app with a `@mesh_route`, a served FastAPI app, static folders
(`web.static`) or CORS (`web.cors`) gets its web side (routes/beans.py), planned while it loads and
served behind the HTTP edge after the framework's routes; any other loads none of its modules."""

from __future__ import annotations

from ..di.conditions import ConditionContext, conditional
from ..di.configuration import configuration, imports
from .route_marks import declares_routes

__all__ = ["RoutesAutoConfiguration", "serves_web"]


def serves_web(context: ConditionContext) -> tuple[bool, str]:
    """Whether the app serves a web side beside `/mcp`, read from its settings and the marks of its scan."""
    web = context.settings.web
    if web.static:
        return True, "web.static serves folders"
    if web.cors.enabled:
        return True, "web.cors is enabled"
    found = declares_routes(context.scan.modules) if context.scan is not None else None
    if found is not None:
        return True, found
    return False, "no @mesh_route, served FastAPI app or static folder, and web.cors is off"


@configuration
@conditional(serves_web, "a @mesh_route, a served FastAPI app, web.static or web.cors")
@imports("mesh_framework.routes.beans:RoutesBeans")
class RoutesAutoConfiguration:
    """Gates the web side's beans (routes/beans.py) on the app serving one."""
