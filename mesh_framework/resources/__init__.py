"""Resources: `@mesh_resource` functions and URI templates, and static files, served as MCP resources."""

from .catalog import FunctionResource, ResourceCatalog, ResourceError, TemplateResource
from .contents import to_contents
from .decorator import ResourceSpec, mesh_resource
from .files import StaticFile, find_files
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
