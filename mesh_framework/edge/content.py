"""The content-type rule: a request body is read only as JSON (`application/json`, `application/*+json`),
or as a form (`multipart/form-data`, `application/x-www-form-urlencoded`) where the route asks for one.

A page on another site can post a form or `text/plain` to any address without asking the server first
(CORS "simple requests"); a JSON body needs the server's consent. So a body that is not JSON reaches only
the routes that take forms: `@mesh_route(..., accepts=[...])` marks its endpoint with `ACCEPTS_ATTR`, a
served FastAPI app answers `edge_accepts(scope, media_type)` from its `Form`/`File` parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

__all__ = ["ACCEPTS_ATTR", "FORM_TYPES", "accepts", "body_media_type", "is_json", "route_accepts"]

ACCEPTS_ATTR = "__mesh_accepts__"
FORM_TYPES = frozenset({"multipart/form-data", "application/x-www-form-urlencoded"})

F = TypeVar("F", bound=Callable[..., Any])


def accepts(*media_types: str) -> Callable[[F], F]:
    """Mark an ASGI endpoint as taking bodies of these form types besides JSON."""
    unknown = sorted(set(media_types) - FORM_TYPES)
    if unknown:
        raise ValueError(f"accepts: {unknown} unknown; a route may accept {', '.join(sorted(FORM_TYPES))}")

    def mark(endpoint: F) -> F:
        setattr(endpoint, ACCEPTS_ATTR, frozenset(media_types))
        return endpoint

    return mark


def body_media_type(content_type: bytes) -> str:
    """`multipart/form-data; boundary=x` → `multipart/form-data`."""
    return content_type.split(b";", 1)[0].strip().lower().decode("latin-1")


def is_json(media_type: str) -> bool:
    return media_type == "application/json" or (
        media_type.startswith("application/") and media_type.endswith("+json")
    )


def route_accepts(routes: Iterable[Any], scope: dict[str, Any], media_type: str) -> bool:
    """Whether the route that will serve `scope` takes a body of `media_type` (a form type)."""
    from starlette.routing import Match  # here: the marks above are read when routes are declared

    for route in routes:
        match, child = route.matches(scope)
        if match is Match.NONE:
            continue
        if match is Match.PARTIAL:
            return False  # the path exists, not for this method: the router answers 405
        marked = getattr(getattr(route, "endpoint", None), ACCEPTS_ATTR, None)
        if marked is not None:
            return media_type in marked
        app = getattr(route, "app", None)
        inner = {**scope, **child}
        asks = getattr(app, "edge_accepts", None)
        if asks is not None:
            return bool(asks(inner, media_type))
        nested = getattr(app, "routes", None)
        if nested is not None and hasattr(route, "path") and not hasattr(route, "endpoint"):  # a Mount
            return route_accepts(nested, inner, media_type)
        return False
    return False
