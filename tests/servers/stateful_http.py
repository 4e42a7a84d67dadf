"""A stateful streamable-HTTP MCP server (the SDK's MCPServer with sessions) whose tool list grows.

`grow(name)` adds a tool named `name` and announces `notifications/tools/list_changed`.
Usage: python -m tests.servers.stateful_http PORT
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("stateful-fixture")


@server.tool()
async def grow(name: str, ctx: Context) -> str:
    """Add a tool called `name` and tell the client."""

    def added(text: str = "") -> str:
        return f"{name}: {text}"

    server.add_tool(added, name=name, description=f"added at run time as {name}")
    await ctx.notify_tools_changed()  # 2026-07-28 clients listening through subscriptions/listen
    await ctx.session.send_tool_list_changed()  # handshake-era sessions
    return f"added {name}"


@server.tool()
async def headers(ctx: Context) -> dict[str, str]:
    """The request headers a client sent that tests look at."""
    request = ctx.request_context.request
    seen = dict(getattr(request, "headers", {}) or {})
    return {k: v for k, v in seen.items() if k.lower() in ("authorization", "x-tenant", "x-call")}


@server.tool()
def ping() -> str:
    """Answer pong."""
    return "pong"


if __name__ == "__main__":
    server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[1]))
