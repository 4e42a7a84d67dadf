"""Our zero-code LLM provider for the LLM benchmark (mirrors tests/interop/llm_provider.py): capability
`llm`, tags `fake`, `llm`; its model `openai/gpt-fake` is the fake OpenAI server, through the official SDK
at `llm.vendors.openai.base_url` (MESH_LLM__VENDORS__OPENAI__BASE_URL).

Run from this folder: `python -m mesh_framework.cli run bench_llm_provider --port 0`.
"""

from __future__ import annotations

from mesh_framework import mesh_agent, mesh_llm_provider


@mesh_agent(name="llm-bench-provider", version="1.0.0")
class LlmBenchProvider:
    """Provider of capability `llm`."""


@mesh_llm_provider("openai/gpt-fake", capability="llm", tags=["fake", "llm"])
def fake_chat() -> None:
    """A fake OpenAI-compatible model (its base URL comes from llm.vendors.openai.base_url)."""
