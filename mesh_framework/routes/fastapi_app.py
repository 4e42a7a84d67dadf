"""A user's own FastAPI app served by the agent beside `/mcp`, with the agent's components and mesh
dependencies given to its handlers through FastAPI's `Depends` (`mesh_framework.fastapi` is the public
name of this module's API).

The app is found by the scan (`serve(app)` marks it), checked at load (every `Bean` type must be a
component, every `MeshTool` a valid selector, every `MeshService` a service interface) and mounted at
build. Each of its routes that uses `MeshTool` or `MeshService` gets dependency slots of its own (its
`MeshTool`s first, then each service's methods in name order), registered and updated exactly like
`@mesh_route` routes'. Its lifespan (`lifespan=`, or `on_event` handlers) runs inside the agent's
(routes/web.py: `mounted_lifespans`); a state it yields is its own requests' `request.state`.

When a `Bean` names a call-scoped bean, each request to the app runs in a call scope of its own (opened only
for such an app), the bean made on first use and closed once the answer has been sent.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from fastapi import Depends, FastAPI, Request, params
from fastapi.dependencies.models import Dependant
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.routing import Match

from ..di.call_scope import CallScope, CallScopes
from ..failures import log_failure
from ..injectables import McpMeshTool
from ..schemas.policy import dependency_schema_problems
from ..services import (
    ServiceDefinitionError,
    ServicePlan,
    analyze_service,
    implement,
    is_service,
    missing_required,
    service_dependencies,
)
from ..specs import DependencySpec, Selector, ToolSpec
from ..tools.signature import ToolSignature, analyze_signature
from ..tools.wrapper import MeshToolWrapper
from ..tools.wrapper_registry import ROUTE_KEY_PREFIX
from .route_marks import SERVE_ATTR

__all__ = [
    "SERVE_ATTR",
    "Bean",
    "BeanDependency",
    "DependencyUnavailable",
    "FastApiPlan",
    "MeshService",
    "MeshServiceDependency",
    "MeshTool",
    "MeshToolDependency",
    "ServedFastApi",
    "plan_fastapi",
    "serve",
]

SCOPE_KEY = "mesh_framework.fastapi"  # the ServedFastApi of the app a request is in
CALL_KEY = "mesh_framework.call_scope"  # the call scope of the request, for an app with call-scoped beans

logger = logging.getLogger("mesh_framework.routes")

T = TypeVar("T")
A = TypeVar("A", bound=FastAPI)


def serve(app: A, path: str = "/") -> A:
    """Serve this FastAPI app from the agent, mounted at `path` beside `/mcp` (after `@mesh_route` routes,
    before `web.static` folders); its lifespan runs when the agent starts and stops. Records metadata
    only; the agent finds the app when it scans."""
    if not isinstance(app, FastAPI):
        raise TypeError(f"serve() takes a FastAPI app, not {app!r}")
    if not path.startswith("/"):
        raise ValueError(f"serve(path={path!r}): the path must start with '/'")
    setattr(app, SERVE_ATTR, path.rstrip("/"))
    return app


class DependencyUnavailable(Exception):
    """A required `MeshTool` dependency (or a required method of a `MeshService`) has no provider
    (answered 503 `dependency_unavailable`)."""

    def __init__(self, capability: str) -> None:
        super().__init__(capability)
        self.capability = capability


class MeshToolDependency:
    """`Depends(...)` target: the live `McpMeshTool` of one dependency, for the route being served."""

    def __init__(self, selector: Selector, required: bool) -> None:
        self.selector = selector
        self.required = required

    async def __call__(self, request: Request) -> McpMeshTool | None:
        # async: FastAPI runs it on the event loop (a refusal may schedule the registry's why)
        served: ServedFastApi = request.scope[SCOPE_KEY]
        return served.proxy(request.scope.get("route"), self)

    def __repr__(self) -> str:
        return f"MeshTool({self.selector.capability!r})"


class MeshServiceDependency:
    """`Depends(...)` target: the implementation of one service interface, for the route being served."""

    def __init__(self, service_type: type[Any]) -> None:
        self.service_type = service_type

    async def __call__(self, request: Request) -> Any:
        served: ServedFastApi = request.scope[SCOPE_KEY]
        return served.service(request.scope.get("route"), self)

    def __repr__(self) -> str:
        return f"MeshService({getattr(self.service_type, '__qualname__', self.service_type)})"


class BeanUnavailable(Exception):
    """A call-scoped bean could not be made for the request (answered 500, the cause in the agent's log)."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


class BeanDependency:
    """`Depends(...)` target: the agent's bean of one type (a call-scoped one: the request's instance)."""

    def __init__(self, bean_type: type[Any]) -> None:
        self.bean_type = bean_type

    async def __call__(self, request: Request) -> Any:
        # async: a call-scoped bean is made on the event loop, in the request's call scope
        served: ServedFastApi = request.scope[SCOPE_KEY]
        return await served.bean(request.scope, self)

    def __repr__(self) -> str:
        return f"Bean({getattr(self.bean_type, '__qualname__', self.bean_type)})"


def MeshTool(dependency: str | Selector | Mapping[str, Any], *, required: bool = True) -> Any:
    """`Depends`-compatible: the `McpMeshTool` for `dependency` (a capability or selector), kept current by
    the mesh. A required one without a provider answers 503 `dependency_unavailable` before the handler
    runs; `required=False` gives None instead."""
    return Depends(MeshToolDependency(Selector.of(dependency), required), use_cache=False)


def MeshService(service_type: type[T]) -> Any:
    """`Depends`-compatible: an implementation of the `@mesh_service` class `service_type` whose methods
    call the providers the registry resolved (as a tool's service parameter). A required method without a
    provider answers 503 `dependency_unavailable` naming its capability before the handler runs."""
    return Depends(MeshServiceDependency(service_type), use_cache=False)


def Bean(bean_type: type[T]) -> Any:
    """`Depends`-compatible: the agent's bean of `bean_type` (the same instance tools receive); for a
    call-scoped bean, the request's own instance, closed once the answer is sent."""
    return Depends(BeanDependency(bean_type))


def _nothing() -> None:
    """The signature every FastAPI route's wrapper carries (the wrapper only holds its slots)."""


@functools.cache
def _empty_signature() -> ToolSignature:
    return analyze_signature(_nothing, model_name="fastapi_route", dependency_count=0)


def _walk(dependant: Dependant) -> Iterator[Any]:
    for sub in dependant.dependencies:
        yield sub.call
        yield from _walk(sub)


@dataclass
class _RouteSlots:
    route: APIRoute
    names: tuple[str, ...]
    markers: tuple[MeshToolDependency, ...]
    services: tuple[tuple[MeshServiceDependency, ServicePlan], ...] = ()

    def dependencies(self) -> tuple[DependencySpec, ...]:
        """The `MeshTool`s' slots, then each service's methods (at the slot after the previous ones)."""
        tools = tuple(DependencySpec(i, m.selector) for i, m in enumerate(self.markers))
        return tools + service_dependencies(
            zip(self.service_slots(), (p for _, p in self.services), strict=True)
        )

    def service_slots(self) -> list[int]:
        """The first slot of each service."""
        first, slots = len(self.markers), []
        for _, plan in self.services:
            slots.append(first)
            first += len(plan.methods)
        return slots


@dataclass
class FastApiPlan:
    app: FastAPI
    path: str
    where: str
    routes: list[_RouteSlots] = field(default_factory=list)
    beans: dict[BeanDependency, str] = field(default_factory=dict)  # marker -> provider name


def plan_fastapi(
    app: FastAPI, path: str, where: str, bean_for: Callable[[Any], str], *, schema_strict: bool = False
) -> tuple[FastApiPlan, list[str]]:
    """The app's routes that use `MeshTool` or `MeshService`, and the components its `Bean`s name; every
    problem found."""
    plan = FastApiPlan(app, path, where)
    problems: list[str] = []
    for route in app.routes:
        if not isinstance(route, APIRoute):
            continue
        markers: list[MeshToolDependency] = []
        services: list[tuple[MeshServiceDependency, ServicePlan]] = []
        for call in _walk(route.dependant):
            if isinstance(call, MeshToolDependency) and call not in markers:
                markers.append(call)
            elif isinstance(call, MeshServiceDependency) and all(call is not m for m, _ in services):
                try:
                    services.append((call, _service_plan(call)))
                except ServiceDefinitionError as exc:
                    problems.append(f"{where}: route {route.path}: {call!r}: {exc}")
            elif isinstance(call, BeanDependency) and call not in plan.beans:
                try:
                    plan.beans[call] = bean_for(call.bean_type)
                except Exception as exc:
                    detail = getattr(exc, "problems", None) or [str(exc)]
                    problems.extend(f"{where}: route {route.path}: {call!r}: {p}" for p in detail)
        if markers or services:
            names = tuple(f"{m}:{path}{route.path}" for m in sorted(route.methods or ()))
            slots = _RouteSlots(route, names, tuple(markers), tuple(services))
            found = dependency_schema_problems(slots.dependencies(), cluster_strict=schema_strict)
            problems.extend(f"{where}: route {route.path}: {p}" for p in found)
            plan.routes.append(slots)
    return plan, problems


def _service_plan(marker: MeshServiceDependency) -> ServicePlan:
    if not is_service(marker.service_type):
        raise ServiceDefinitionError(
            f"{marker.service_type!r} is not a service interface; mark the class @mesh_service and its "
            "methods @selector('capability')"
        )
    return analyze_service(marker.service_type)


class ServedFastApi:
    """The app as the agent serves it: its routes' dependency slots and the components it asks for."""

    def __init__(
        self, plan: FastApiPlan, provide: Callable[[str], Any], scopes: CallScopes | None = None
    ) -> None:
        self.plan = plan
        self.app = plan.app
        self.state: dict[str, Any] | None = None  # what the app's lifespan yielded, while it runs
        names = scopes.names if scopes is not None else frozenset()
        self.scoped = {marker: name for marker, name in plan.beans.items() if name in names}
        # only an app that asks for a call-scoped bean opens a scope per request
        self.scopes = scopes if self.scoped else None
        self.beans = {
            marker: provide(name) for marker, name in plan.beans.items() if marker not in self.scoped
        }
        self.wrappers: list[MeshToolWrapper] = []
        self._slots: dict[tuple[int, int], tuple[MeshToolWrapper, int]] = {}
        self._services: dict[tuple[int, int], tuple[MeshToolWrapper, ServicePlan, int, Any]] = {}
        for route in plan.routes:
            deps = route.dependencies()
            spec = ToolSpec(
                function=route.route.endpoint,
                name=route.names[0],
                capability="",
                dependencies=deps,
                kwargs={"route_names": route.names},
            )
            wrapper = MeshToolWrapper(
                key=f"{ROUTE_KEY_PREFIX}fastapi:{plan.where}:{route.names[0]}",
                name=route.names[0],
                spec=spec,
                signature=_empty_signature(),
                target=route.route.endpoint,
                description="",
                timeout=None,
            )
            self.wrappers.append(wrapper)
            for index, marker in enumerate(route.markers):
                self._slots[(id(route.route), id(marker))] = (wrapper, index)
            for first, (service, service_plan) in zip(route.service_slots(), route.services, strict=True):
                implementation = implement(service_plan, wrapper.slots, first)
                self._services[(id(route.route), id(service))] = (
                    wrapper,
                    service_plan,
                    first,
                    implementation,
                )
        self.app.add_exception_handler(DependencyUnavailable, _unavailable)
        self.app.add_exception_handler(BeanUnavailable, _bean_unavailable)

    async def bean(self, scope: Any, marker: BeanDependency) -> Any:
        """The bean a `Bean` names: the agent's, or the request's instance of a call-scoped one."""
        name = self.scoped.get(marker)
        if name is None:
            return self.beans[marker]
        call: CallScope = scope[CALL_KEY]
        try:
            return await call.get(name)
        except Exception as exc:
            where = f"{self.describe()}: making call-scoped bean '{name}' for {scope.get('path', '/')}"
            log_failure(logger, where, exc)
            raise BeanUnavailable(name) from exc

    def proxy(self, route: Any, marker: MeshToolDependency) -> McpMeshTool | None:
        found = self._slots.get((id(route), id(marker)))
        if found is None:
            raise RuntimeError(f"{marker!r} is used outside the routes the agent planned ({route!r})")
        wrapper, index = found
        proxy = wrapper.slots[index]
        if proxy is None and marker.required:
            if wrapper.unresolved_listener is not None:
                wrapper.unresolved_listener(wrapper, wrapper.spec.dependencies[index])
            raise DependencyUnavailable(marker.selector.capability)
        return proxy

    def service(self, route: Any, marker: MeshServiceDependency) -> Any:
        found = self._services.get((id(route), id(marker)))
        if found is None:
            raise RuntimeError(f"{marker!r} is used outside the routes the agent planned ({route!r})")
        wrapper, plan, first, implementation = found
        missing = missing_required(plan, wrapper.slots, first)
        if missing:
            dependency = wrapper.spec.dependencies[missing[0]]
            if wrapper.unresolved_listener is not None:
                wrapper.unresolved_listener(wrapper, dependency)
            raise DependencyUnavailable(dependency.selector.capability)
        return implementation

    def describe(self) -> str:
        """How start-up failures name the app: `the FastAPI app shop.api (mounted at /shop)`."""
        return f"the FastAPI app {self.plan.where} (mounted at {self.plan.path or '/'})"

    @contextlib.asynccontextmanager
    async def lifespan(self) -> AsyncIterator[None]:
        """The app's own lifespan (its `lifespan=`, or its `on_event` handlers), as when it is served
        alone; the state it yields is given to its requests."""
        async with self.app.router.lifespan_context(self.app) as state:
            self.state = dict(state) if state else None
            try:
                yield
            finally:
                self.state = None

    def edge_accepts(self, scope: Any, media_type: str) -> bool:
        """Whether the route serving `scope` reads a form (a `Form` or `File` parameter, as FastAPI reads
        them): the guarded edge lets form bodies reach only such routes."""
        for route in self.app.router.routes:
            match, _child = route.matches(scope)
            if match is Match.FULL:
                return isinstance(route, APIRoute) and _takes_form(route)
            if match is Match.PARTIAL:
                return False
        return False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        scope[SCOPE_KEY] = self
        if self.state is not None:  # a shallow copy per request, as Starlette gives an app's own state
            scope["state"] = {**scope.get("state", {}), **self.state}
        if self.scopes is None or scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        async with self.scopes.open() as call:  # closed once the app has sent its answer (a stream's end too)
            scope[CALL_KEY] = call
            await self.app(scope, receive, send)


def _takes_form(route: APIRoute) -> bool:
    """A `Form` (or `File`, a kind of form) parameter in the route or one of its dependencies."""
    pending = [route.dependant]
    while pending:
        dependant = pending.pop()
        if any(isinstance(getattr(p, "field_info", None), params.Form) for p in dependant.body_params):
            return True
        pending.extend(dependant.dependencies)
    return False


async def _unavailable(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, DependencyUnavailable)
    return JSONResponse({"error": "dependency_unavailable", "capability": exc.capability}, status_code=503)


async def _bean_unavailable(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, BeanUnavailable)
    detail = f"bean '{exc.name}' could not be made for this request; the agent's log has the cause"
    return JSONResponse({"error": "internal_error", "detail": detail}, status_code=500)
