"""An agent whose tool, prompt and resource bodies fail: with an expected error (a MeshError, as a vendor
without an API key raises) and with a bug (any other exception), for the failure-logging tests."""

from mesh_framework import LlmProviderError, completer, mesh_agent, mesh_prompt, mesh_resource, mesh_tool


@mesh_agent(name="failing", version="1.0.0")
class FailingAgent:
    pass


@mesh_tool()
async def no_key() -> str:
    raise LlmProviderError("no API key for openai: set OPENAI_API_KEY")


@mesh_tool(task=True)  # a job tool: called plainly, it runs inline
async def no_key_task() -> str:
    raise LlmProviderError("no API key for gemini")


@mesh_tool()
def bug() -> str:
    return {}["missing"]  # type: ignore[no-any-return]


@mesh_prompt()
def briefing() -> str:
    raise LlmProviderError("no API key for anthropic")


@mesh_resource("config://secret")
def secret() -> str:
    raise LlmProviderError("the vault is sealed")


@mesh_prompt()
def review(language: str) -> str:
    return f"Review this {language} code."


@completer("language", prompt="review")
def languages(value: str) -> list[str]:
    raise LlmProviderError("no API key for the language model")
