"""`console-caller`: `sleepy` calls the sleeper's `nap` (a test stops the sleeper mid-call)."""

from __future__ import annotations

from mesh_framework import McpMeshTool, mesh_agent, mesh_tool


@mesh_agent(name="console-caller", version="1.0.0", scan=["tests.apps.console_app.caller"])
class Caller:
    pass


@mesh_tool(capability="sleepy", dependencies=["nap"])
async def sleepy(seconds: float, nap: McpMeshTool) -> str:
    """Calls `nap(seconds)`."""
    return "caller>" + str(await nap(seconds=seconds))
