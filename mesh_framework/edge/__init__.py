"""The guarded edge: one ASGI middleware in front of every HTTP surface of an agent, the registry and the
console (Host/Origin, content types, body limits, request concurrency, caller identity, error mapping).

A surface is guarded by being mounted behind `GuardedEdge`; `accepts` marks a route that takes a form.
Names load on first use: `@mesh_route(accepts=...)` reads the form types without the middleware.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .content import ACCEPTS_ATTR, FORM_TYPES, accepts, body_media_type
    from .middleware import GuardedEdge, edge_of
    from .policy import EdgePolicy

__all__ = [
    "ACCEPTS_ATTR",
    "FORM_TYPES",
    "EdgePolicy",
    "GuardedEdge",
    "accepts",
    "body_media_type",
    "edge_of",
]

_HOMES = {
    "ACCEPTS_ATTR": ".content",
    "FORM_TYPES": ".content",
    "accepts": ".content",
    "body_media_type": ".content",
    "GuardedEdge": ".middleware",
    "edge_of": ".middleware",
    "EdgePolicy": ".policy",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals())
