"""Calls an OpenAPI operation served by another agent (tests/apps/openapi_app) as a mesh capability."""

from __future__ import annotations

from mesh_framework import McpMeshTool, mesh_agent, mesh_tool


@mesh_agent(name="openapi-caller", version="1.0.0")
class OpenApiCaller:
    pass


@mesh_tool(capability="pet_name", dependencies=["get_pet"])
async def pet_name(pet_id: int, get_pet: McpMeshTool | None = None) -> str:
    """The name of a pet, asked of whoever serves `get_pet`."""
    assert get_pet is not None
    pet = await get_pet(pet_id=pet_id)
    return str(pet["name"])
