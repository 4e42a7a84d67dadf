"""The middle of a streamed chain: `relay` re-yields the stream of the `chat` capability as it comes."""

from __future__ import annotations

from mesh_framework import McpMeshTool, Stream, mesh_agent, mesh_tool


@mesh_agent(name="relay", version="1.0.0")
class Relay:
    pass


@mesh_tool(dependencies=["chat"])
async def relay(prompt: str, chat: McpMeshTool) -> Stream[str]:
    """`chat`'s chunks, re-emitted to this call's caller one by one."""
    async for chunk in chat.stream(prompt=prompt):
        yield chunk


@mesh_tool(dependencies=["endless"])
async def relay_endless(endless: McpMeshTool) -> Stream[str]:
    """An endless stream through one more hop."""
    async for chunk in endless.stream(prefix="far"):
        yield chunk


@mesh_tool(dependencies=["endless"])
async def first_tick(endless: McpMeshTool) -> str:
    """Reads one chunk of an endless stream, then leaves it (which stops it)."""
    async for chunk in endless.stream(prefix="first"):
        return chunk
    return ""


@mesh_tool(dependencies=["mesh_chat"])
async def collect(prompt: str, mesh_chat: McpMeshTool) -> list[str]:
    """The chunks of `mesh_chat`'s stream, one item per chunk."""
    return [chunk async for chunk in mesh_chat.stream(prompt=prompt)]


@mesh_tool(dependencies=["mesh_chat"])
async def relay_mesh(prompt: str, mesh_chat: McpMeshTool) -> Stream[str]:
    """`mesh_chat`'s chunks, re-emitted."""
    async for chunk in mesh_chat.stream(prompt=prompt):
        yield chunk


@mesh_tool(dependencies=["stall"])
async def relay_stall(seconds: float, stall: McpMeshTool) -> Stream[str]:
    """`stall`'s stream through one more hop."""
    async for chunk in stall.stream(seconds=seconds):
        yield chunk


@mesh_tool(dependencies=["stall_briefly"])
async def relay_stall_briefly(seconds: float, stall_briefly: McpMeshTool) -> Stream[str]:
    """`stall_briefly`'s stream through one more hop, read with its registered stream_timeout."""
    async for chunk in stall_briefly.stream(seconds=seconds):
        yield chunk
