"""A provider of `echo` and a consumer of it, for the fault suite.

The provider answers with its `FAULT_LABEL`, after `delay` seconds; when `FAULT_MARK` names a file, a call
creates it as it starts (so a test knows a call is in flight without sleeping). The consumer's `relay`
calls `echo` through the mesh; `relay_flaky` and `relay_far` call capabilities the tests register by hand
(a misbehaving server, the provider behind a TCP proxy).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from mesh_framework import McpMeshTool, mesh_agent, mesh_tool


@mesh_agent(name="fault-agent")
class FaultAgent:
    pass


@mesh_tool(capability=os.environ.get("FAULT_CAPABILITY", "echo"))
async def echo(text: str, delay: float = 0.0) -> str:
    """Answer `label:text` after `delay` seconds."""
    mark = os.environ.get("FAULT_MARK")
    if mark:
        Path(mark).write_text(text)
    await asyncio.sleep(delay)
    return f"{os.environ.get('FAULT_LABEL', 'provider')}:{text}"


@mesh_tool(capability="relay", dependencies=["echo"])
async def relay(text: str, echo: McpMeshTool, delay: float = 0.0) -> str:
    """Call `echo` through the mesh."""
    return await _call(echo, text, delay)


@mesh_tool(capability="relay_flaky", dependencies=["flaky_echo"])
async def relay_flaky(text: str, echo: McpMeshTool, delay: float = 0.0) -> str:
    """Call `flaky_echo` (a misbehaving server in the tests) through the mesh."""
    return await _call(echo, text, delay)


@mesh_tool(capability="relay_far", dependencies=["far_echo"])
async def relay_far(text: str, echo: McpMeshTool, delay: float = 0.0) -> str:
    """Call `far_echo` (the provider behind a TCP proxy in the tests) through the mesh."""
    return await _call(echo, text, delay)


async def _call(echo: McpMeshTool, text: str, delay: float) -> str:
    return str(await echo(text=text, delay=delay))


@mesh_tool(capability="relay_idem", dependencies=["idem_echo"], timeout=10.0)
async def relay_idem(text: str, echo: McpMeshTool, delay: float = 0.0) -> str:
    """Call `idem_echo` (registered by hand as idempotent); its own timeout outlasts one failover."""
    return await _call(echo, text, delay)


@mesh_tool(capability="relay_plain", dependencies=["plain_echo"], timeout=10.0)
async def relay_plain(text: str, echo: McpMeshTool, delay: float = 0.0) -> str:
    """Call `plain_echo` (registered by hand, not idempotent)."""
    return await _call(echo, text, delay)
