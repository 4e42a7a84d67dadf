"""Resources: `@mesh_resource` functions and URI templates, and static files, served as MCP resources.

The names below are loaded on first use (PEP 562): the decorator is imported by every app, the catalogs
and file readers only by an app that serves resources.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from .contents import to_contents
    from .decorator import ResourceSpec, mesh_resource
    from .files import StaticFile, find_files
    from .resource_catalog import FunctionResource, ResourceCatalog, ResourceError, TemplateResource
    from .template import UriTemplate

__all__ = [
    "FunctionResource",
    "ResourceCatalog",
    "ResourceError",
    "ResourceSpec",
    "StaticFile",
    "TemplateResource",
    "UriTemplate",
    "find_files",
    "mesh_resource",
    "to_contents",
]

_LOCATIONS = {
    "FunctionResource": ".resource_catalog",
    "ResourceCatalog": ".resource_catalog",
    "ResourceError": ".resource_catalog",
    "ResourceSpec": ".decorator",
    "StaticFile": ".files",
    "TemplateResource": ".resource_catalog",
    "UriTemplate": ".template",
    "find_files": ".files",
    "mesh_resource": ".decorator",
    "to_contents": ".contents",
}


__getattr__, __dir__ = lazy_exports(__name__, _LOCATIONS, globals())
