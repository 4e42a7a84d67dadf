"""`@mesh_route`: a function (or a component's method) served as a web route beside the MCP endpoint."""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from .._frozen import frozen
from ..edge.content import FORM_TYPES
from ..specs import DependencySpec, Selector, scope_names

__all__ = ["HTTP_METHODS", "ROUTE_ATTR", "SERVE_ATTR", "RouteSpec", "declares_routes", "mesh_route"]

ROUTE_ATTR = "__mesh_route__"
SERVE_ATTR = "__mesh_serve__"  # set on a FastAPI app by mesh_framework.fastapi.serve
HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
_PATH = re.compile(r"^/[A-Za-z0-9_.~!$&'()*+,;=:@%/{}\-]*$")

F = TypeVar("F", bound=Callable[..., Any])


@frozen
class RouteSpec:
    """What `@mesh_route` recorded about a function or method."""

    function: Callable[..., Any]
    path: str
    methods: tuple[str, ...]
    dependencies: tuple[DependencySpec, ...] = ()
    description: str | None = None
    accepts: tuple[str, ...] = ()  # form body types the route reads besides JSON
    scopes: tuple[str, ...] = ()  # what the caller's access token must grant (401/403 otherwise)

    @property
    def names(self) -> tuple[str, ...]:
        """The route as the registry lists it: one `"METHOD:/path"` per method (MCP Mesh's pseudo-tools)."""
        return tuple(f"{method}:{self.path}" for method in self.methods)


def mesh_route(
    path: str,
    *,
    methods: Sequence[str] = ("GET",),
    dependencies: Sequence[str | Selector | Mapping[str, Any]] = (),
    description: str | None = None,
    accepts: Sequence[str] = (),
    scopes: Sequence[str] = (),
) -> Callable[[F], F]:
    """Serve the function at `path` on the agent's own HTTP server, beside the MCP endpoint.

    Parameters are injected by type as for tools (components, `McpMeshTool` for each of `dependencies`
    in order); a pydantic-model parameter is the JSON body, other parameters come from the path
    (`/items/{item_id}`) and the query string. The return value is sent as JSON, or as Server-Sent
    Events when the function returns `Stream[str]`. A body is accepted as JSON only; a route that reads a
    form from its `Request` names the form types in `accepts` (`"multipart/form-data"`,
    `"application/x-www-form-urlencoded"`), since any page may post a form to any address. `scopes`: what
    the caller's access token must grant (with a token verifier configured): without a token the route
    answers 401, with a token lacking them 403 `insufficient_scope`, each with a `WWW-Authenticate:
    Bearer` challenge, as the MCP endpoint does for a tool. Usage::

        @mesh_route("/api/greet/{name}", dependencies=["greeting"])
        async def greet(name: str, greeting: McpMeshTool) -> dict:
            return {"text": await greeting(name=name)}
    """
    if not isinstance(path, str) or not _PATH.match(path):
        raise ValueError(f"Route path {path!r} is invalid: it must start with '/' (e.g. '/api/items/{{id}}')")
    if isinstance(methods, str) or not methods:
        raise ValueError(f"methods must be a non-empty list such as ['GET', 'POST'], got {methods!r}")
    upper = tuple(dict.fromkeys(str(m).upper() for m in methods))
    unknown = [m for m in upper if m not in HTTP_METHODS]
    if unknown:
        raise ValueError(f"Route method(s) {unknown} unknown; use {', '.join(HTTP_METHODS)}")
    deps = tuple(DependencySpec(index=i, selector=Selector.of(d)) for i, d in enumerate(dependencies))
    forms = (accepts,) if isinstance(accepts, str) else tuple(accepts)
    unknown = sorted(set(forms) - set(FORM_TYPES))
    if unknown:
        raise ValueError(f"accepts={unknown} unknown; a route may accept {', '.join(sorted(FORM_TYPES))}")
    wanted = scope_names(scopes, f"@mesh_route({path!r})")

    def mark(function: F) -> F:
        if not callable(function):
            raise TypeError(f"@mesh_route applies to functions and methods, not {function!r}")
        if getattr(function, ROUTE_ATTR, None) is not None:
            raise TypeError(
                f"{getattr(function, '__qualname__', function)} has two @mesh_route; serve one path per "
                "function (several methods: methods=[...])"
            )
        setattr(function, ROUTE_ATTR, RouteSpec(function, path, upper, deps, description, forms, wanted))
        return function

    return mark


def declares_routes(modules: Iterable[str]) -> str | None:
    """Where the scanned `modules` declare a web route: a `@mesh_route` function, a class with a
    `@mesh_route` method or a FastAPI app marked to be served; None when none does. Reads the marks only
    (nothing of the routes' planning or serving is imported to answer)."""
    for name in modules:
        module = sys.modules.get(name)
        for attribute, value in list(vars(module).items()) if module is not None else []:
            if isinstance(getattr(value, ROUTE_ATTR, None), RouteSpec):
                return f"{name}.{attribute} is a @mesh_route"
            if inspect.isclass(value):
                for member in vars(value).values():
                    function = member.__func__ if isinstance(member, staticmethod | classmethod) else member
                    # read statically: a member may compute what it is asked (a deferred pydantic model's
                    # validator builds the model's schema, changing the class while it is read)
                    if isinstance(inspect.getattr_static(function, ROUTE_ATTR, None), RouteSpec):
                        return f"{name}.{value.__qualname__} has a @mesh_route method"
            elif isinstance(getattr(value, SERVE_ATTR, None), str):
                return f"{name}.{attribute} is a FastAPI app served by the agent"
    return None
