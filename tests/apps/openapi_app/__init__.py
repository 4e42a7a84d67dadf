"""An agent serving two HTTP services' operations as tools (`mcp.openapi`): a FastAPI app's own OpenAPI
3.1 document, fetched by URL, and a static OpenAPI 3.0 file, beside a tool of its own."""

from __future__ import annotations

from mesh_framework import mesh_agent, mesh_tool


@mesh_agent(name="openapi", version="1.0.0")
class OpenApiAgent:
    pass


@mesh_tool()
async def local_echo(text: str) -> str:
    """A tool of the app's own."""
    return text
