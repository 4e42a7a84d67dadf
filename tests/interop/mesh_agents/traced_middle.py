#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture agent ``mesh-middle``: provides ``middle`` by calling whichever agent provides
``back``, and says which trace context it ran in.

Its answer is ``middle[TRACE_ID/SPAN_ID/PARENT_SPAN]>`` followed by the ``back`` answer, read from
mcp-mesh's own trace context (set from the caller's X-Trace-ID/X-Parent-Span or ``_trace_id``/
``_parent_span``; the span is this tool's execution, which its proxy sends on as the parent). Run with
MCP_MESH_DISTRIBUTED_TRACING_ENABLED=true, else mcp-mesh keeps no span of its own.
"""

import mesh
from _mcp_mesh.tracing.context import TraceContext
from fastmcp import FastMCP
from mesh.types import McpMeshTool

app = FastMCP("Mesh Middle")


@app.tool()
@mesh.tool(capability="middle", dependencies=["back"], description="The middle of a traced chain.")
async def middle(text: str, back: McpMeshTool | None = None) -> str:
    """``back``'s answer, prefixed with the trace context this call ran in."""
    current = TraceContext.get_current()
    seen = f"{current.trace_id}/{current.span_id}/{current.parent_span}" if current else "none"
    rest = await back(text=text) if back is not None else "back unavailable"
    return f"middle[{seen}]>{rest}"


@mesh.agent(name="mesh-middle", version="1.0.0", http_port=0, auto_run=True)
class MeshMiddle:
    """Provider of ``middle``, consumer of ``back``."""
