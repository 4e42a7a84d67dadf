"""The gateway agent of `callbacks_bench.py`: no tool of its own; it re-serves the catalog server
`everything` (server-everything over stdio, started by the agent itself) as its own MCP tools (`echo`,
`get-sum`, ...) through `mcp.gateway`.

Served by `python -m mesh_framework.cli run gateway_agent --config gateway_agent/config --port N` with
`benchmarks/callbacks_servers/` as the working directory and `NODE` / `EVERYTHING` in the environment
(the node binary and server-everything's `dist/index.js`).
"""

from __future__ import annotations

from mesh_framework import mesh_agent


@mesh_agent(name="bench-gateway", version="0.1.0", description="Benchmark gateway: server-everything's tools")
class GatewayBenchAgent:
    """The application class: its package (`gateway_agent`) is what the scan imports."""
