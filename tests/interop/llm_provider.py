#!/usr/bin/env python3
"""mcp-mesh 3.8 fixture agent ``mesh-fakellm``: an ``@mesh.llm_provider`` (capability ``llm``, tags
``fake``, ``llm``) whose model ``openai/gpt-fake`` is an OpenAI-compatible API.

The API's base URL and key come from ``FAKE_OPENAI_BASE_URL`` / ``FAKE_OPENAI_API_KEY`` and are handed
to the provider as the decorator's ``base_url`` / ``api_key`` kwargs, which mcp-mesh passes to its
native OpenAI adapter (``openai.AsyncOpenAI(base_url=..., api_key=...)``; LiteLLM is not installed and
not needed for ``openai/*`` models). The function name ``fake_chat`` is the provider's tool name.
"""

import os

import mesh
from fastmcp import FastMCP

app = FastMCP("Mesh Fake LLM")


@mesh.llm_provider(
    model="openai/gpt-fake",
    capability="llm",
    tags=["fake", "llm"],
    version="1.0.0",
    base_url=os.environ["FAKE_OPENAI_BASE_URL"],
    api_key=os.environ.get("FAKE_OPENAI_API_KEY", "sk-test"),
)
def fake_chat():
    """A fake OpenAI-compatible model, served to the mesh."""


@mesh.agent(name="mesh-fakellm", version="1.0.0", http_port=0, auto_run=True)
class MeshFakeLlm:
    """Provider of capability ``llm``."""
