"""The agent at the end of the chain: answers with the headers the mesh forwarded to it."""

from __future__ import annotations

from mesh_framework import mesh_agent, mesh_tool, propagated_headers


@mesh_agent(name="back", version="1.0.0")
class Back:
    pass


@mesh_tool(capability="headers_seen")
def headers_seen() -> dict[str, str]:
    """The allowlisted headers of this call."""
    return dict(propagated_headers())
