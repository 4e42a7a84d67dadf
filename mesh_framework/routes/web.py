"""The agent's web side beside the MCP endpoint: `@mesh_route` routes, static folders (`web.static`) and
CORS (`web.cors`). Planned at load (problems reported before the port is bound), built with the app. The
lifespans of the apps mounted in it (a served FastAPI app) run inside the agent's (`start_mounted`)."""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from .._frozen import frozen, record
from ..config.loader import LoadedSettings
from ..config.settings import MeshSettings
from ..edge import accepts
from ..errors import ConfigError, MeshError, WiringError
from ..extension import LoadPlan
from ..failures import exception_text, log_failure
from ..propagation import HeaderAllowlist
from ..protocol.drain import Drain
from ..tools.wrapper import MeshToolWrapper
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .handler import RouteHandler
from .planning import RoutePlan, plan_routes
from .route_marks import SERVE_ATTR

__all__ = ["MountedAppError", "StaticFolder", "WebApp", "WebPlan", "build_web", "plan_web", "start_mounted"]

logger = logging.getLogger("mesh_framework.routes")


class MountedAppError(MeshError):
    """The lifespan of an app mounted in the agent failed at start-up (the message names the app)."""


@frozen
class StaticFolder:
    path: str
    directory: Path
    html: bool


@record
class WebPlan(LoadPlan):
    """The routes, static folders and served FastAPI apps found while the app loads (a plan with problems
    is never made: `plan_web` raises)."""

    routes: list[RoutePlan] = field(default_factory=list)
    static: list[StaticFolder] = field(default_factory=list)
    fastapi: list[Any] = field(default_factory=list)  # FastApiPlan (routes/fastapi_app.py), when served


@record
class WebApp:
    """What the app serves beside `/mcp`: Starlette routes and middleware, and the routes' wrappers
    (their dependency slots, which the mesh runtime keeps current)."""

    registry: MeshToolWrapperRegistry = field(default_factory=MeshToolWrapperRegistry)
    routes: list[BaseRoute] = field(default_factory=list)
    middleware: list[Middleware] = field(default_factory=list)
    llm_configs: dict[str, Any] = field(default_factory=dict)  # `@mesh_llm` routes' LlmToolConfig by name
    mounted: list[Any] = field(default_factory=list)  # ServedFastApi, in mount order: their lifespans run


def plan_web(
    loaded: LoadedSettings,
    modules: Sequence[str],
    components: dict[type, str],
    *,
    can_inject: Callable[[Any], bool],
    bean_for: Callable[[Any], str],
    describe: Callable[[Any], str],
    config_dir: Path | None,
    package_dir: Path | None,
) -> WebPlan:
    """Every route and static folder checked. Raises WiringError (code) or ConfigError (settings)."""

    def llm_config(name: str, function: Callable[..., Any], return_type: Any, streams: bool) -> Any:
        from ..llm.config import resolve_llm_config  # LLM modules: only for an app with a @mesh_llm route

        return resolve_llm_config(name, function, loaded, return_type=return_type, streams=streams)

    routes, problems = plan_routes(
        modules,
        components,
        can_inject=can_inject,
        bean_for=bean_for,
        describe=describe,
        llm_config=llm_config,
        schema_strict=loaded.settings.tools.schema_strict,
    )
    fastapi, fastapi_problems = _plan_fastapi(modules, bean_for, loaded.settings.tools.schema_strict)
    problems += fastapi_problems
    served = {name: plan.display for plan in routes for name in plan.spec.names}
    for app in fastapi:
        for route in app.routes:
            problems.extend(
                f"{app.where}: FastAPI route {name} is already served by @mesh_route {served[name]}"
                for name in route.names
                if name in served
            )
    if problems:
        raise WiringError(problems)
    static: list[StaticFolder] = []
    config_problems: list[str] = []
    for index, mount in enumerate(loaded.settings.web.static):
        found = _locate(mount.directory, config_dir, package_dir)
        if found is None:
            origin = loaded.origin_of("web.static")
            config_problems.append(
                f"web.static[{index}].directory = {mount.directory!r} (from {origin}): no such folder in the "
                "config folder or the app package; fix the path"
            )
            continue
        static.append(StaticFolder(mount.path, found, mount.html))
    if config_problems:
        raise ConfigError(config_problems)
    return WebPlan(routes, static, fastapi)


def _plan_fastapi(
    modules: Sequence[str], bean_for: Callable[[Any], str], schema_strict: bool
) -> tuple[list[Any], list[str]]:
    """FastAPI apps marked with `mesh_framework.fastapi.serve` in the scanned modules."""
    found = [
        (name, attribute, value)
        for name in modules
        for attribute, value in list(vars(sys.modules[name]).items() if name in sys.modules else [])
        if isinstance(getattr(value, SERVE_ATTR, None), str)
        and any(str(getattr(c, "__module__", "")).startswith("fastapi.") for c in type(value).__mro__)
    ]
    if not found:
        return [], []
    from .fastapi_app import plan_fastapi

    plans: list[Any] = []
    problems: list[str] = []
    for module, attribute, app in found:
        plan, found_problems = plan_fastapi(
            app, getattr(app, SERVE_ATTR), f"{module}.{attribute}", bean_for, schema_strict=schema_strict
        )
        plans.append(plan)
        problems += found_problems
    return plans, problems


def _locate(listed: str, config_dir: Path | None, package_dir: Path | None) -> Path | None:
    path = Path(listed)
    if path.is_absolute():
        return path if path.is_dir() else None
    for base in (config_dir, package_dir):
        if base is not None and (base / path).is_dir():
            return base / path
    return None


def build_web(
    plan: WebPlan | None,
    provide: Callable[[str], Any],
    initial_proxy: Callable[[Any], Any],
    settings: MeshSettings,
    drain: Drain | None = None,
    *,
    scopes: Any = None,
) -> WebApp:
    """The routes' handlers and wrappers, the static mounts (after every route) and CORS when enabled;
    `drain` (the agent's) counts the routes' streams, so a stop waits for them and then ends them; `scopes`
    (di/call_scope.CallScopes) opens the call scope of the routes that take a call-scoped bean."""
    web = WebApp()
    if plan is None:
        return web
    mask = settings.tools.mask_error_details
    propagation = HeaderAllowlist(settings.mesh.propagate_headers)  # as the MCP endpoint's
    for route in plan.routes:
        target = getattr(provide(route.owner), route.attribute) if route.owner else route.spec.function
        wrapper = MeshToolWrapper(
            key=route.key,
            name=route.tool_spec.name or route.key,
            spec=route.tool_spec,
            signature=route.signature,
            target=target,
            description=route.spec.description or "",
            timeout=None,
            mask_errors=mask,
        )
        for dependency in route.tool_spec.dependencies:
            wrapper.update_dependency(dependency.index, initial_proxy(dependency))
        web.registry.add(wrapper)
        if route.llm is not None:
            web.llm_configs[wrapper.name] = route.llm
        scoped = {p: b for p, b in route.beans.items() if scopes is not None and b in scopes.names}
        beans = {name: provide(bean) for name, bean in route.beans.items() if name not in scoped}
        options: dict[str, Any] = {
            "max_body_bytes": settings.server.max_body_bytes,
            "propagation": propagation,
            "drain": drain,
        }
        if scoped:  # routes/call_scoped.py, loaded only for such a route
            from .call_scoped import CallScopedRouteHandler

            handler: RouteHandler = CallScopedRouteHandler(
                route, wrapper, target, beans, scoped=scoped, scopes=scopes, **options
            )
        else:
            handler = RouteHandler(route, wrapper, target, beans, **options)
        if route.spec.accepts:
            accepts(*route.spec.accepts)(handler)  # the edge lets these form bodies through (edge/content.py)
        web.routes.append(Route(route.spec.path, handler, methods=list(route.spec.methods)))
    if plan.fastapi:
        from .fastapi_app import ServedFastApi

        for app_plan in plan.fastapi:
            served = ServedFastApi(app_plan, provide, scopes)
            for wrapper in served.wrappers:
                for dependency in wrapper.spec.dependencies:
                    wrapper.update_dependency(dependency.index, initial_proxy(dependency))
                web.registry.add(wrapper)
            web.routes.append(Mount(app_plan.path, app=served, name=f"fastapi:{app_plan.where}"))
            web.mounted.append(served)
    for folder in plan.static:
        app = StaticFiles(directory=folder.directory, html=folder.html)
        web.routes.append(Mount(folder.path.rstrip("/") or "", app=app, name=f"static:{folder.path}"))
    cors = settings.web.cors
    if cors.enabled:
        web.middleware.append(
            Middleware(
                CORSMiddleware,
                allow_origins=cors.allow_origins,
                allow_origin_regex=cors.allow_origin_regex,
                allow_methods=cors.allow_methods,
                allow_headers=cors.allow_headers,
                allow_credentials=cors.allow_credentials,
                expose_headers=cors.expose_headers,
                max_age=cors.max_age,
            )
        )
    return web


async def start_mounted(web: WebApp) -> contextlib.AsyncExitStack:
    """Run the lifespan of every mounted app, in mount order, to its start-up; closing the stack returned
    runs their shutdowns in reverse order (a shutdown that raises is logged and the others still run).

    Raises MountedAppError, on one line naming the app, when one fails to start (after stopping the ones
    started before it)."""
    stack = contextlib.AsyncExitStack()
    for served in web.mounted:
        running = served.lifespan()
        try:
            await running.__aenter__()
        except BaseException as exc:
            await stack.aclose()
            if not isinstance(exc, Exception):
                raise
            text = " ".join(line.strip() for line in exception_text(exc).splitlines() if line.strip())
            raise MountedAppError(f"{served.describe()} failed to start: {text}") from exc
        stack.push_async_exit(_stopping(served, running))
    return stack


def _stopping(served: Any, running: Any) -> Callable[..., Awaitable[bool]]:
    async def stop(exc_type: Any, exc: Any, tb: Any) -> bool:
        try:
            await running.__aexit__(exc_type, exc, tb)
        except Exception as failure:
            log_failure(logger, f"the shutdown of {served.describe()}", failure)
        return False

    return stop
