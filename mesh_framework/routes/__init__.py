"""Web routes with injection (`@mesh_route`), static folders and CORS, served beside the MCP endpoint."""

from .route_marks import mesh_route

__all__ = ["mesh_route"]
