"""Tool calls from the console page (`POST /ui/call`): which calls it may make, and making them.

A call names an agent and one of the tools that agent registered; the agent must be registered and
healthy now, serve over HTTP, and a framework tool (`__mesh_job_*`, `get_server_status`) is called only
when the page shows them (`"framework": true`: the "show framework tools" toggle, or the page following
the job it started). Anything else is refused before any request leaves. The call is made by the mesh's
own MCP client (`mesh/transport.py`, what a dependency proxy speaks: protocol negotiation, event
streams, chunks as progress notifications), never as a raw POST.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterable
from typing import Any

import httpx2

from ..._frozen import frozen
from ..._version import __version__
from ...mesh.transport import McpTransport, ProviderUnreachable, RemoteError

__all__ = [
    "CALL_TIMEOUT",
    "FRAMEWORK_TOOLS",
    "CallRefused",
    "ToolCall",
    "call_lines",
    "check_call",
    "is_framework_tool",
    "read_call",
]

CALL_TIMEOUT = 120.0  # the longest wait for each piece of an answer (a chunk, or the result)
FRAMEWORK_TOOLS = frozenset({"get_server_status"})
_JOB_PREFIX = "__mesh_job_"


def is_framework_tool(name: str) -> bool:
    """A tool the framework adds to every agent (the job tools, the status tool)."""
    return name.startswith(_JOB_PREFIX) or name in FRAMEWORK_TOOLS


class CallRefused(Exception):
    """A call the console does not make: `status` and `field` for the answer."""

    def __init__(self, status: int, message: str, field: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field


@frozen
class ToolCall:
    """One `POST /ui/call` body, checked: `{agent_id, tool, arguments, framework}`."""

    agent_id: str
    tool: str
    arguments: dict[str, Any]
    framework: bool


def read_call(body: Any) -> ToolCall:
    """The call in a decoded body; CallRefused (400) naming the bad field."""
    if not isinstance(body, dict):
        raise CallRefused(400, "the call must be a JSON object {agent_id, tool, arguments}")
    agent_id, tool, arguments = body.get("agent_id"), body.get("tool"), body.get("arguments", {})
    framework = body.get("framework", False)
    if not isinstance(agent_id, str) or not agent_id:
        raise CallRefused(400, "agent_id must be the id of a registered agent", "agent_id")
    if not isinstance(tool, str) or not tool:
        raise CallRefused(400, "tool must be the name of a tool", "tool")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        kind = type(arguments).__name__
        raise CallRefused(400, f"arguments must be a JSON object, not {kind}", "arguments")
    if not isinstance(framework, bool):
        raise CallRefused(400, f"framework must be true or false, not {framework!r}", "framework")
    return ToolCall(agent_id, tool, arguments, framework)


def check_call(call: ToolCall, *, healthy: bool, endpoint: str, tools: Iterable[str]) -> str:
    """The agent's MCP URL when `call` may go to it (registered `tools`, `healthy`, an HTTP `endpoint`);
    CallRefused otherwise."""
    if not healthy:
        raise CallRefused(409, f"agent {call.agent_id!r} is not healthy", "agent_id")
    if not endpoint.startswith(("http://", "https://")):
        raise CallRefused(409, f"agent {call.agent_id!r} serves no HTTP endpoint ({endpoint!r})", "agent_id")
    if call.tool not in set(tools):
        raise CallRefused(404, f"agent {call.agent_id!r} registered no tool {call.tool!r}", "tool")
    if is_framework_tool(call.tool) and not call.framework:
        raise CallRefused(
            403,
            f"{call.tool!r} is a framework tool: the page calls it only while it shows framework tools",
            "tool",
        )
    return endpoint.rstrip("/") + "/mcp"


def _line(data: dict[str, Any]) -> bytes:
    try:
        text = json.dumps(data, separators=(",", ":"), default=str, allow_nan=False)
    except ValueError:  # NaN or Infinity in the agent's answer: JSON (and the page) cannot carry it
        text = json.dumps({"error": "the agent's answer holds a number JSON cannot carry (NaN or Infinity)"})
    return text.encode() + b"\n"


async def call_lines(url: str, call: ToolCall) -> AsyncIterator[bytes]:
    """Make `call` at the agent's MCP `url`; NDJSON lines as the answer comes: `{"chunk": text}` for each
    streamed chunk, then `{"result": CallToolResult}`, or `{"error": message}`."""
    params = {"name": call.tool, "arguments": call.arguments}
    async with httpx2.AsyncClient(trust_env=False, timeout=CALL_TIMEOUT) as http:
        transport = McpTransport(http, client_name="mesh-console", client_version=__version__)
        try:
            async for piece in transport.stream(url, params, read_timeout=CALL_TIMEOUT):
                yield _line({"chunk": piece} if isinstance(piece, str) else {"result": piece})
        except ProviderUnreachable as exc:
            yield _line({"error": f"agent {call.agent_id!r} unreachable: {exc}"})
        except RemoteError as exc:
            code = f" (JSON-RPC {exc.code})" if exc.code is not None else ""
            yield _line({"error": f"{exc}{code}"})
