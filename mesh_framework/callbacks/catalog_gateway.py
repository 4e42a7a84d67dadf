"""The catalog gateway (`mcp.gateway`): tools of catalog MCP servers re-served by this agent, so the mesh
can use them. (Not `mesh gateway`, the mesh's endpoint for MCP clients: mesh_gateway/.)

`mcp.gateway: [filesystem, everything]` makes each tool of those servers a tool (and a mesh capability)
of this agent, named as the callback provider names them (unique, `[A-Za-z0-9_-]`, at most 64
characters; a clash with a local tool is prefixed `alt_N_`). Other agents, `mesh call`, `meshctl` and LLM
tool selectors use them like any tool; a stdio server becomes reachable across the mesh this way.

Servers are discovered before the agent serves. A server that is down then is left out with a warning
and tried again every `retry_interval` seconds; when its tools appear or change (`tools/list_changed`),
the tool list and the registry entry follow.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import ToolExecutionError
from ..events import ApplicationEventPublisher
from ..specs import ToolSpec
from ..tools.context import ToolContext
from ..tools.forwarding import forwarding_signature
from ..tools.wrapper import MeshToolWrapper, error_result
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .definition import ToolCallback
from .mcp import McpToolCallbackProvider
from .provider import ToolsChanged

__all__ = ["GatewayTool", "CatalogGateway"]

logger = logging.getLogger("mesh_framework.callbacks.catalog_gateway")


def _forward() -> None:  # the spec's function: gateway tools have no Python body of their own
    """A tool re-served from an MCP server."""


class GatewayTool(MeshToolWrapper):
    """A wrapper whose call forwards to a catalog server's tool; arguments are checked by that server."""

    __slots__ = ("callback",)

    def __init__(self, callback: ToolCallback) -> None:
        definition = callback.definition
        signature = forwarding_signature(definition.input_schema, output_schema=definition.output_schema)
        spec = ToolSpec(
            function=_forward,
            name=definition.name,
            capability=definition.name,
            description=definition.description,
            tags=("gateway", f"mcp:{definition.connection}"),
            kwargs={"gateway": definition.connection, "source_tool": definition.original_name},
        )
        super().__init__(
            key=f"gateway.{definition.connection}.{definition.original_name}",
            name=definition.name,
            spec=spec,
            signature=signature,
            target=_forward,
            description=definition.description,
            timeout=None,
        )
        self.callback = callback

    async def call(
        self,
        arguments: Mapping[str, Any] | None,
        context: ToolContext | None = None,
        *,
        deadline: float | None = None,
    ) -> dict[str, Any]:
        try:
            return await self._within_budget(self.callback.call_result(arguments, context), deadline)
        except ToolExecutionError as exc:
            logger.warning("gateway tool '%s' failed: %s", self.name, exc)
            return error_result(str(exc))


class CatalogGateway:
    """Keeps the agent's gateway tools in step with the catalog servers it re-serves.

    `on_change` is called after the tool set changed (the app re-renders `tools/list` and re-registers).
    """

    def __init__(
        self,
        provider: McpToolCallbackProvider,
        registry: MeshToolWrapperRegistry,
        *,
        publisher: ApplicationEventPublisher | None = None,
        retry_interval: float = 5.0,
    ) -> None:
        self.provider = provider
        self.registry = registry
        self.retry_interval = retry_interval
        self.on_change: Callable[[], None] = lambda: None
        self._served: dict[str, GatewayTool] = {}
        self._retry: asyncio.Task[None] | None = None
        self._unsubscribe = publisher.subscribe(ToolsChanged, self._on_tools_changed) if publisher else None
        self.provider.publisher = publisher
        self.provider.reserved_names = {w.name for w in registry if not isinstance(w, GatewayTool)}

    @property
    def servers(self) -> list[str]:
        return [c.name for c in self.provider.connections]

    def tools(self) -> list[str]:
        return list(self._served)

    async def start(self) -> None:
        """Discover the servers and serve their tools; servers that are down are retried in the background."""
        await self.sync()
        if self.provider.errors and self._retry is None:
            self._retry = asyncio.get_running_loop().create_task(self._retry_missing(), name="gateway retry")

    async def sync(self) -> None:
        """Make the served gateway tools match what the servers offer now."""
        callbacks = {c.definition.name: c for c in await self.provider.get_tool_callbacks()}
        changed = False
        for name in [n for n in self._served if n not in callbacks]:
            self.registry.remove(name)
            del self._served[name]
            changed = True
        for name, callback in callbacks.items():
            served = self._served.get(name)
            if served is not None and served.callback.definition == callback.definition:
                served.callback = callback
                continue
            if served is not None:
                self.registry.remove(name)
            tool = GatewayTool(callback)
            self.registry.add(tool)
            self._served[name] = tool
            changed = True
        if changed:
            logger.info(
                "gateway serves %d tool(s) of %s", len(self._served), ", ".join(self.servers) or "no server"
            )
            self.on_change()

    async def _retry_missing(self) -> None:
        while self.provider.errors:
            await asyncio.sleep(self.retry_interval)
            try:
                await self.sync()
            except Exception as exc:
                logger.warning("gateway: could not refresh its tools (%s)", exc)
        self._retry = None

    async def _on_tools_changed(self, event: ToolsChanged) -> None:
        if event.connection in self.servers:
            await self.sync()

    async def aclose(self) -> None:
        if self._retry is not None:
            self._retry.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._retry
            self._retry = None
        if self._unsubscribe is not None:
            self._unsubscribe()
        await self.provider.aclose()
