#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture agent ``mesh-a2a-bridge``: tool ``echo_bridge`` (capability ``echo-bridge``) is an
``@mesh.a2a_consumer`` of the A2A endpoint in ``A2A_URL`` (our agent's skill), with a bearer token;
``words_bridge`` streams (``subscribe``) from the one in ``A2A_WORDS_URL``."""

import os

import mesh
from fastmcp import FastMCP

app = FastMCP("Mesh A2A Bridge")


@app.tool()
@mesh.a2a_consumer(
    capability="echo-bridge",
    a2a_url=os.environ["A2A_URL"],
    tags=["a2a-bridge"],
    auth=mesh.A2ABearer(token="bridge-token"),
)
async def echo_bridge(text: str, _a2a: mesh.A2AClient = None) -> str:
    """Send ``text`` to the A2A skill; answer its artifact text."""
    response = await _a2a.send(message={"role": "user", "parts": [{"type": "text", "text": text}]})
    return f"{response.state}:{response.artifact_text}"


@app.tool()
@mesh.a2a_consumer(capability="words-bridge", a2a_url=os.environ["A2A_WORDS_URL"], tags=["a2a-bridge"])
async def words_bridge(text: str, _a2a: mesh.A2AClient = None) -> str:
    """Stream ``text`` through the A2A skill; answer the artifact chunks joined by '|'."""
    stream = await _a2a.subscribe(message={"role": "user", "parts": [{"type": "text", "text": text}]})
    chunks = [event.artifact_text async for event in stream if event.kind == "artifact"]
    return "|".join(chunks)


@mesh.agent(name="mesh-a2a-bridge", version="1.0.0", http_port=0, auto_run=True)
class MeshA2aBridge:
    """An A2A consumer agent."""
