"""Tool callbacks over the mesh: `MeshToolCallback` (one capability through its `McpMeshTool` proxy) and
`MeshToolCallbackProvider` (the mesh tools one tool of this agent may use, following the topology live).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import MeshError, ToolExecutionError
from ..events import ApplicationEventPublisher
from ..injectables import McpMeshTool
from ..mesh.proxy import Provider
from ..mesh.proxy_factory import McpMeshToolProxyFactory
from ..mesh.topology import TopologyEvent
from ..tools.context import ToolContext
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .connection_info import McpConnectionInfo
from .definition import ToolCallback, ToolDefinition
from .mcp import McpToolFilter
from .meta import ToolContextMetaConverter
from .naming import ToolNameGenerator, assign_names
from .provider import ToolCallbackProvider, ToolsChanged

__all__ = ["MeshToolCallback", "MeshToolCallbackProvider"]

logger = logging.getLogger("mesh_framework.callbacks")


class MeshToolCallback(ToolCallback):
    """Calls a mesh capability through its proxy: same transport, failover and errors as `McpMeshTool`."""

    def __init__(
        self,
        proxy: McpMeshTool,
        definition: ToolDefinition,
        meta_converter: ToolContextMetaConverter | None = None,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        self.proxy = proxy
        self.definition = definition
        self.meta_converter = meta_converter or ToolContextMetaConverter()
        self.loop = loop

    async def call_result(
        self, arguments: Mapping[str, Any] | None = None, context: ToolContext | None = None
    ) -> dict[str, Any]:
        try:
            return await self.proxy.call_result(
                self.proxy.function_name, arguments, meta=self.meta_converter(context)
            )
        except ToolExecutionError as exc:
            raise ToolExecutionError(
                exc.message, tool=self.definition.name, agent=exc.agent, definition=self.definition
            ) from None


def _entry_definition(entry: Mapping[str, Any]) -> ToolDefinition | None:
    name, endpoint = entry.get("name") or entry.get("function_name"), entry.get("endpoint")
    if not (isinstance(name, str) and name and isinstance(endpoint, str) and endpoint):
        return None
    schema = entry.get("inputSchema") or entry.get("input_schema") or {"type": "object", "properties": {}}
    return ToolDefinition(
        name=name,
        description=str(entry.get("description") or ""),
        input_schema=schema if isinstance(schema, Mapping) else {"type": "object", "properties": {}},
        connection=str(entry.get("agent_id") or endpoint),
        source_name=name,
        output_schema=entry.get("outputSchema") if isinstance(entry.get("outputSchema"), Mapping) else None,
    )


class MeshToolCallbackProvider(ToolCallbackProvider):
    """The mesh tools a tool of this agent may use: its resolved dependencies (`McpMeshTool` slots) and the
    tools the registry lists for it in `llm_tools`. Topology events (a dependency gained, changed or lost;
    `llm_tools_updated`) invalidate the cache and are published as `ToolsChanged(f"mesh:{tool}", ...)`.
    """

    def __init__(
        self,
        tool: str,
        *,
        factory: McpMeshToolProxyFactory,
        tools: MeshToolWrapperRegistry | None = None,
        publisher: ApplicationEventPublisher | None = None,
        tool_filter: McpToolFilter | None = None,
        name_generator: ToolNameGenerator | None = None,
        meta_converter: ToolContextMetaConverter | None = None,
        llm_tools: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        self.tool = tool
        self.factory = factory
        self.tools = tools
        self.publisher = publisher
        self.tool_filter = tool_filter
        self.name_generator = name_generator or ToolNameGenerator()
        self.meta_converter = meta_converter or ToolContextMetaConverter()
        self.llm_tools = [dict(e) for e in llm_tools]
        self._schemas: dict[tuple[str, str], ToolDefinition] = {}
        self._callbacks: list[ToolCallback] | None = None
        self._unsubscribe = publisher.subscribe(TopologyEvent, self.on_topology_event) if publisher else None

    @property
    def connection_name(self) -> str:
        return f"mesh:{self.tool}"

    def _wrapper_key(self) -> str | None:
        if self.tools is None:
            return None
        wrapper = self.tools.get(self.tool)
        return wrapper.key if wrapper is not None else None

    async def on_topology_event(self, event: TopologyEvent) -> None:
        key = self._wrapper_key()
        if event.kind == "llm_tools_updated" and event.key == self.tool:
            self.llm_tools = [dict(e) for e in event.data or [] if isinstance(e, Mapping)]
        elif not (key is not None and event.key.startswith(f"{key}:dep_")):
            return
        self.invalidate()
        if self.publisher is not None:
            callbacks = await self.get_tool_callbacks()
            await self.publisher.publish(
                ToolsChanged(self.connection_name, tuple(c.definition for c in callbacks))
            )

    def invalidate(self) -> None:
        self._callbacks = None

    async def get_tool_callbacks(self) -> list[ToolCallback]:
        if self._callbacks is not None:
            return list(self._callbacks)
        loop = asyncio.get_running_loop()
        found: list[tuple[McpMeshTool, ToolDefinition]] = []
        for proxy in self._dependency_proxies():
            definition = await self._dependency_definition(proxy)
            if definition is not None:
                found.append((proxy, definition))
        for entry in self.llm_tools:
            definition = _entry_definition(entry)
            provider = Provider.from_listing(entry)
            if definition is None or provider is None:
                continue
            found.append(
                (
                    self.factory.proxy_for(str(entry.get("capability") or definition.name), provider),
                    definition,
                )
            )
        infos = [McpConnectionInfo(server_name=d.connection or "mesh") for _p, d in found]
        kept = [
            (proxy, info, definition)
            for (proxy, definition), info in zip(found, infos, strict=True)
            if self.tool_filter is None or self.tool_filter(info, definition)
        ]
        named = assign_names(self.name_generator, [(info, d) for _p, info, d in kept])
        self._callbacks = [
            MeshToolCallback(proxy, definition, self.meta_converter, loop)
            for (proxy, _info, _d), definition in zip(kept, named, strict=True)
        ]
        return list(self._callbacks)

    def _dependency_proxies(self) -> list[McpMeshTool]:
        if self.tools is None:
            return []
        wrapper = self.tools.get(self.tool)
        if wrapper is None:
            raise MeshError(f"this agent has no tool '{self.tool}'")
        return [proxy for proxy in wrapper.slots if proxy is not None]

    async def _dependency_definition(self, proxy: McpMeshTool) -> ToolDefinition | None:
        key = (proxy.endpoint, proxy.function_name)
        cached = self._schemas.get(key)
        if cached is not None:
            return cached
        try:
            listed = await proxy.list_tools()
        except ToolExecutionError as exc:
            logger.warning("mesh tool '%s' left out: %s", proxy.function_name, exc)
            return None
        for tool in listed:
            if tool.get("name") == proxy.function_name:
                definition = ToolDefinition(
                    name=proxy.function_name,
                    description=str(tool.get("description") or ""),
                    input_schema=tool.get("inputSchema") or {"type": "object", "properties": {}},
                    connection=proxy.agent_id,
                    source_name=proxy.function_name,
                    output_schema=tool.get("outputSchema"),
                )
                self._schemas[key] = definition
                return definition
        logger.warning("mesh tool '%s' is not listed by %s; left out", proxy.function_name, proxy.agent_id)
        return None

    async def aclose(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
