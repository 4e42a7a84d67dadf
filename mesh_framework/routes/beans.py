"""The web side's beans (gated by routes/auto_configuration.py): the plan made while the app loads (every
route and static folder checked), the routes' handlers and wrappers (`web_app`), served after the
framework's routes with a static folder at / last; their dependency slots kept current by the mesh runtime;
the lifespans of the FastAPI apps mounted in the agent run while it serves."""

from __future__ import annotations

import contextlib

from ..config.settings import MeshSettings
from ..di.configuration import bean, configuration
from ..di.wiring import describe_location
from ..errors import ConfigError, WiringError
from ..extension import BeanLookup, HttpSurface, RouteSlots, ScannedApp, ServingLifecycle
from ..mesh.proxy_factory import McpMeshToolProxyFactory
from ..protocol.asgi import AgentState
from .web import WebApp, WebPlan, build_web, plan_web, start_mounted

__all__ = ["MOUNTED_PHASE", "WEB_ORDER", "RoutesBeans"]

# The app's routes come after the framework's (the probes, /metrics, /status, A2A at 0), a static folder
# mounted at / last among them.
WEB_ORDER = 1000
# The mounted apps' lifespans start before the other serving lifecycles and stop after them.
MOUNTED_PHASE = -1000


class _MountedApps(ServingLifecycle):
    """The lifespans of the FastAPI apps mounted in the agent, started in mount order, stopped in reverse."""

    phase = MOUNTED_PHASE

    def __init__(self, web: WebApp) -> None:
        self.web = web
        self.running: contextlib.AsyncExitStack | None = None

    async def start(self) -> None:
        self.running = await start_mounted(self.web)

    async def stop(self) -> None:
        running, self.running = self.running, None
        if running is not None:
            await running.aclose()


@configuration
class RoutesBeans:
    @bean
    def web_plan(self, app: ScannedApp) -> WebPlan:
        try:
            return plan_web(
                app.loaded,
                app.scan.modules,
                app.owners(),
                can_inject=app.catalog.can_inject,
                bean_for=app.bean_for,
                describe=describe_location,
                config_dir=app.config_dir,
                package_dir=app.package_dir,
            )
        except (WiringError, ConfigError) as exc:  # reported with every other problem while loading
            failed = WebPlan()
            failed.problems, failed.config_problems = exc.problems, isinstance(exc, ConfigError)
            return failed

    @bean
    def web_app(
        self,
        plan: WebPlan,
        lookup: BeanLookup,
        factory: McpMeshToolProxyFactory,
        settings: MeshSettings,
        state: AgentState,
    ) -> WebApp:
        beans = lookup("bean_lifecycle")  # di/lifecycle.BeanLifecycle: the call scopes of the routes' beans
        return build_web(
            plan,
            lookup,
            factory.initial_proxy,
            settings,
            drain=state.drain,  # a stop waits for the routes' streams, then ends them
            scopes=beans.scopes if beans is not None else None,
        )

    @bean(order=WEB_ORDER)
    def web_surface(self, web: WebApp, plan: WebPlan) -> HttpSurface:
        scopes = {f"route {r.display}": r.spec.scopes for r in plan.routes if r.spec.scopes}
        return HttpSurface(
            web.routes, order=WEB_ORDER, middleware=web.middleware, app_routes=True, scopes=scopes
        )

    @bean
    def web_route_slots(self, web: WebApp) -> RouteSlots:
        return RouteSlots(web.registry)

    @bean
    def mounted_apps(self, web: WebApp) -> ServingLifecycle:
        return _MountedApps(web)
