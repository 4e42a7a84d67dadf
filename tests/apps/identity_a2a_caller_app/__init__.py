"""Calls an A2A peer's skills through injected `A2aClient`s (`whoami`, `whoami_stream`, `whoami_legacy`:
pointed at by `a2a.peers.<name>`), with the identity the settings name for each
(`auth.dependency_clients.<name>`): a package of its own, so scanning it does not import the peer."""

from __future__ import annotations

import json
from typing import Annotated

from mesh_framework import A2aClient, A2aPeer, mesh_agent, mesh_tool


@mesh_agent(name="identity-a2a-caller", version="1.0.0")
class IdentityA2aCaller:
    pass


@mesh_tool()
async def ask_whoami(text: str, whoami: A2aClient) -> object:
    """Who the peer's plain skill says called it."""
    task = await whoami.send(text)
    return {"state": task.state, "answer": json.loads(task.text)}


@mesh_tool()
async def stream_whoami(text: str, peer: Annotated[A2aClient, A2aPeer("whoami_stream")]) -> object:
    """Who the peer's streaming skill says called it."""
    chunks = [event.text async for event in peer.stream(text) if event.kind == "artifact" and event.text]
    return json.loads("".join(chunks))


@mesh_tool()
async def ask_whoami_legacy(text: str, whoami_legacy: A2aClient) -> object:
    """The plain skill again, through a peer set to MCP Mesh's dialect (tasks/send)."""
    task = await whoami_legacy.send(text)
    return {"state": task.state, "answer": json.loads(task.text)}
