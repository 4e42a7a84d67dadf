"""Clients the tools use, made by code: a `@configuration` class whose `@bean` methods build them.

`Notes` is a plain class (no decorator of the framework's), so it works anywhere a `ToolCallbackProvider`
does, in a script or a test; the configuration gives the agent's one, its connections to the catalog's
servers. `jot` takes `Notes` by type, as it would any bean.

`ask`'s model talks through the agent's `openai.AsyncOpenAI` bean: the framework makes one from
`llm.vendors.openai` unless the application declares its own, as `--profile azure` does (azure.py).
"""

from __future__ import annotations

from pydantic import BaseModel, SecretStr

from mesh_framework import ToolCallbackProvider, bean, config_properties, configuration, imports, profile


class Notes:
    """A typed client of the `notes` MCP server of the catalog (config/mcp-servers.json)."""

    def __init__(self, tools: ToolCallbackProvider) -> None:
        self.tools = tools

    async def add(self, text: str) -> int:
        """Keep a note; how many notes there are now."""
        return int(await (await self.tools.find("add_note")).call({"text": text}))

    async def all(self) -> list[str]:
        """Every note kept so far, oldest first."""
        return list(await (await self.tools.find("list_notes")).call())


@configuration
class Clients:
    @bean
    def notes(self, tools: ToolCallbackProvider) -> Notes:
        """Over the agent's connection to the catalog's `notes` server, which `ask`'s model shares: both see
        the same notes, and the agent stops the server when it stops."""
        return Notes(tools)


@config_properties("azure")
class AzureProperties(BaseModel):
    """The `azure:` section (config/application-azure.yaml): where `ask`'s Azure OpenAI deployment is."""

    endpoint: str | None = None
    api_key: SecretStr | None = None
    api_version: str = "2024-10-21"


@configuration
@profile("azure")
@imports("starter_app.azure:AzureClient")
class Azure:
    """With `--profile azure`, `ask`'s OpenAI client is Azure's (azure.py, imported only then)."""
