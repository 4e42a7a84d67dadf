"""OpenAPI services as tools: each operation of an OpenAPI 3.0/3.1 document listed in `mcp.openapi` is a
tool of the agent (and so a mesh capability) that calls the service over HTTP.

The names below are loaded on first use (PEP 562): an app that lists no service imports none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .document import OpenApiDocument, read_document
    from .operations import Operation, ParameterPlan
    from .tool import OpenApiTool

__all__ = ["OpenApiDocument", "OpenApiTool", "Operation", "ParameterPlan", "read_document"]

_LOCATIONS = {
    "OpenApiDocument": ".document",
    "OpenApiTool": ".tool",
    "Operation": ".operations",
    "ParameterPlan": ".operations",
    "read_document": ".document",
}


__getattr__, __dir__ = lazy_exports(__name__, _LOCATIONS, globals())
