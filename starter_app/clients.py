"""Clients the tools use, made by code: a `@configuration` class whose `@bean` methods build them.

`Notes` is a plain class (no decorator of the framework's), so it works anywhere a `ToolCallbackProvider`
does, in a script or a test; the configuration gives the agent's one, its connections to the catalog's
servers. `jot` takes `Notes` by type, as it would any bean.
"""

from __future__ import annotations

from mesh_framework import ToolCallbackProvider, bean, configuration


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
