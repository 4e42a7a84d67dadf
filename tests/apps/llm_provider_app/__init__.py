"""A zero-code LLM provider agent: an OpenAI-compatible model served to the mesh."""

from __future__ import annotations

from mesh_framework import mesh_agent, mesh_llm_provider


@mesh_agent(name="fakellm", version="1.0.0")
class FakeLlmAgent:
    pass


@mesh_llm_provider("openai/gpt-fake", capability="llm", tags=["fake", "llm"], temperature=0.1)
def fake_chat() -> None:
    """A fake OpenAI-compatible model (its base URL comes from llm.vendors.openai.base_url)."""
