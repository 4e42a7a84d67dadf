"""Prompts and resources of the agent behind an `McpMeshTool` (MCP Mesh's proxy has the same four calls).

Usage::

    @mesh_tool(dependencies=["docs"])
    async def summarize(docs: McpMeshTool) -> str:
        prompt = await docs.get_prompt("summary", {"topic": "logs"})
        contents = await docs.read_resource("file:///docs/guide.md")
        ...
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import ToolExecutionError

__all__ = ["RemoteFeatures"]


class RemoteFeatures:
    """`list_prompts`, `get_prompt`, `list_resources`, `list_resource_templates` and `read_resource` over
    one request method that proxies implement (`_feature_request`)."""

    agent_id: str

    async def _feature_request(self, method: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        raise ToolExecutionError(
            f"{type(self).__name__} serves tools only; {method} needs a proxy to a remote agent",
            tool=method,
            agent=getattr(self, "agent_id", ""),
        )

    async def list_prompts(self) -> list[dict[str, Any]]:
        """The provider agent's prompts (`name`, `description`, `arguments`)."""
        return list((await self._feature_request("prompts/list")).get("prompts") or [])

    async def get_prompt(self, name: str, arguments: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The rendered prompt (`GetPromptResult`: `messages`, `description`); a missing argument or an
        unknown prompt raises ToolExecutionError with the provider's message."""
        params = {"name": name, "arguments": {k: str(v) for k, v in (arguments or {}).items()}}
        return await self._feature_request("prompts/get", params)

    async def list_resources(self) -> list[dict[str, Any]]:
        """The provider agent's resources (`uri`, `name`, `mimeType`, ...)."""
        return list((await self._feature_request("resources/list")).get("resources") or [])

    async def list_resource_templates(self) -> list[dict[str, Any]]:
        """The provider agent's resource templates (`uriTemplate`, `name`, ...)."""
        return list((await self._feature_request("resources/templates/list")).get("resourceTemplates") or [])

    async def read_resource(self, uri: str) -> list[dict[str, Any]]:
        """The contents of `uri` (each with `uri`, `mimeType` and `text` or base64 `blob`)."""
        return list((await self._feature_request("resources/read", {"uri": uri})).get("contents") or [])
