"""LLM tools whose vendor SDK clients are the agent's beans: the framework's, made from `llm.vendors.*`, or
with `clients.mode: own` the application's own (a header of their own on every request, as an app sets an
organization, an HTTP client or Azure's client). `clients.mode: broken` declares a client that cannot be
made without a key, `clients.mode: two` two OpenAI clients, neither primary."""

from __future__ import annotations

from anthropic import AsyncAnthropic
from openai import AsyncOpenAI

from mesh_framework import (
    MeshLlmAgent,
    MeshSettings,
    bean,
    conditional_on_property,
    configuration,
    mesh_agent,
    mesh_llm,
    mesh_tool,
)


@mesh_agent(name="llm-client", version="1.0.0")
class LlmClientAgent:
    pass


@mesh_tool(capability="ask")
@mesh_llm(provider="openai/gpt-fake")
async def ask(question: str, llm: MeshLlmAgent) -> str:
    return await llm(question)


@mesh_tool(capability="summarize")
@mesh_llm(provider="openai/gpt-fake-mini")
async def summarize(text: str, llm: MeshLlmAgent) -> str:
    return await llm(f"Summarize: {text}")


@mesh_tool(capability="ask_claude")
@mesh_llm(provider="anthropic/claude-fake")
async def ask_claude(question: str, llm: MeshLlmAgent) -> str:
    return await llm(question)


@configuration
@conditional_on_property("clients.mode", having_value="own")
class OwnClients:
    @bean
    def team_openai(self, settings: MeshSettings) -> AsyncOpenAI:
        vendor = settings.llm.vendor("openai")
        return AsyncOpenAI(
            base_url=vendor.base_url, api_key="own-key", max_retries=0, default_headers={"X-Team": "blue"}
        )

    @bean
    def team_anthropic(self, settings: MeshSettings) -> AsyncAnthropic:
        vendor = settings.llm.vendor("anthropic")
        return AsyncAnthropic(
            base_url=vendor.base_url, api_key="own-key", max_retries=0, default_headers={"X-Team": "red"}
        )


@configuration
@conditional_on_property("clients.mode", having_value="broken")
class BrokenClient:
    @bean(lazy=True)  # made on the first call, which says why it cannot be
    def keyless_openai(self) -> AsyncOpenAI:
        return AsyncOpenAI(api_key=None)  # no OPENAI_API_KEY either: the SDK refuses


@configuration
@conditional_on_property("clients.mode", having_value="two")
class TwoClients:
    @bean
    def first_openai(self) -> AsyncOpenAI:
        return AsyncOpenAI(api_key="k1")

    @bean
    def second_openai(self) -> AsyncOpenAI:
        return AsyncOpenAI(api_key="k2")
