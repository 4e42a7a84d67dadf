"""Tool callbacks over MCP servers: `McpToolCallback` (one tool) and `McpToolCallbackProvider` (the tools of
one or more catalog servers, discovered in parallel, filtered, uniquely named and cached).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ..catalog.server_catalog import McpServerCatalog
from ..errors import ConfigError, MeshError, ToolExecutionError
from ..events import ApplicationEventPublisher
from ..tools.context import ToolContext
from .connection import HeaderSource, McpConnection, McpConnectionError
from .connection_info import McpConnectionInfo
from .definition import ToolCallback, ToolDefinition
from .meta import ToolContextMetaConverter
from .naming import ToolNameGenerator, assign_names
from .provider import ToolCallbackProvider, ToolsChanged

if TYPE_CHECKING:
    import mcp_types as types

__all__ = ["McpToolCallback", "McpToolCallbackProvider", "McpToolFilter"]

logger = logging.getLogger("mesh_framework.callbacks")

McpToolFilter = Callable[[McpConnectionInfo, ToolDefinition], bool]
"""Which tools of a connection to offer: a predicate on `(connection_info, tool)`."""


def _definition(server: str, tool: types.Tool) -> ToolDefinition:
    return ToolDefinition(
        name=tool.name,
        description=tool.description or "",
        input_schema=tool.input_schema,
        connection=server,
        source_name=tool.name,
        output_schema=tool.output_schema,
    )


def _check_schema(server: str, tool: types.Tool) -> str | None:
    schema = tool.input_schema
    if not isinstance(schema, Mapping) or schema.get("type", "object") != "object":
        return f"MCP server '{server}': tool '{tool.name}' has an input schema that is not an object; skipped"
    return None


class McpToolCallback(ToolCallback):
    """Calls one tool of a catalog server through its shared connection."""

    def __init__(
        self,
        connection: McpConnection,
        definition: ToolDefinition,
        meta_converter: ToolContextMetaConverter | None = None,
    ) -> None:
        self.connection = connection
        self.definition = definition
        self.meta_converter = meta_converter or ToolContextMetaConverter()

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:  # type: ignore[override]
        return self.connection.loop

    async def call_result(
        self, arguments: Mapping[str, Any] | None = None, context: ToolContext | None = None
    ) -> dict[str, Any]:
        from mcp.shared.exceptions import MCPError  # loaded by the connection already

        definition = self.definition
        progress = None
        if context is not None and context.progress_token is not None:
            progress = context.report_progress
        try:
            result = await self.connection.call_tool(
                definition.original_name,
                arguments or {},
                meta=self.meta_converter(context),
                progress=progress,
            )
        except McpConnectionError as exc:
            raise ToolExecutionError(
                exc.reason, tool=definition.name, agent=exc.server, definition=definition
            ) from None
        except MCPError as exc:
            raise ToolExecutionError(
                f"{exc.message} (code {exc.code})",
                tool=definition.name,
                agent=self.connection.name,
                definition=definition,
            ) from None
        except TimeoutError:
            raise ToolExecutionError(
                "no answer within the call timeout",
                tool=definition.name,
                agent=self.connection.name,
                definition=definition,
            ) from None
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)


class McpToolCallbackProvider(ToolCallbackProvider):
    """The tools of several MCP servers as callbacks.

    Discovery runs in parallel, one at a time per connection (concurrent callers share it), and is cached
    until `invalidate()` or until a server announces a changed tool list; each change is published as
    `ToolsChanged` through `publisher`. A server that cannot be reached is left out with a warning naming it
    and tried again on the next use (`errors` tells why); `start(fail_fast=True)` fails instead, listing
    every unreachable server.

    Usage::

        provider = McpToolCallbackProvider.from_catalog(catalog, ["filesystem", "everything"])
        for callback in await provider.get_tool_callbacks():
            print(callback.definition.name)
    """

    def __init__(
        self,
        connections: Sequence[McpConnection],
        *,
        tool_filter: McpToolFilter | None = None,
        name_generator: ToolNameGenerator | None = None,
        meta_converter: ToolContextMetaConverter | None = None,
        publisher: ApplicationEventPublisher | None = None,
        reserved_names: Iterable[str] = (),
    ) -> None:
        self.connections = list(connections)
        self.tool_filter = tool_filter
        self.name_generator = name_generator or ToolNameGenerator()
        self.meta_converter = meta_converter or ToolContextMetaConverter()
        self.publisher = publisher
        self.reserved_names = set(reserved_names)
        self.errors: dict[str, str] = {}
        self._tools: dict[str, list[ToolDefinition]] = {}  # the cache
        self._known: dict[str, list[ToolDefinition]] = {}  # last list seen, to tell a change
        self._pending: set[asyncio.Future[Any]] = set()
        self._discovering: dict[str, asyncio.Future[list[ToolDefinition]]] = {}
        self._callbacks: list[ToolCallback] | None = None
        for connection in self.connections:
            connection.add_tools_listener(self._on_server_change)

    @classmethod
    def from_catalog(
        cls,
        catalog: McpServerCatalog,
        names: Iterable[str] | None = None,
        *,
        client_info: Mapping[str, str] | None = None,
        connect_timeout: float = 10.0,
        call_timeout: float | None = 30.0,
        headers: Mapping[str, HeaderSource] | None = None,
        **options: Any,
    ) -> McpToolCallbackProvider:
        """Connections to the servers `names` of `catalog` (default: all), with per-server `headers`."""
        servers = catalog.resolve(names) if names is not None else dict(catalog.get_all())
        headers = headers or {}
        connections = [
            McpConnection(
                name,
                definition,
                client_info=client_info,
                connect_timeout=connect_timeout,
                call_timeout=call_timeout,
                headers=headers.get(name),
            )
            for name, definition in servers.items()
        ]
        return cls(connections, **options)

    async def find(self, name: str) -> ToolCallback:
        """The callback named `name`; when there is none, the error also says which servers are down and
        why (their tools may be the missing one)."""
        try:
            return await super().find(name)
        except MeshError as exc:
            if not self.errors:
                raise
            down = "; ".join(
                f"MCP server '{c.name}' is down: {self.errors[c.name]}"
                for c in self.connections
                if c.name in self.errors
            )
            raise MeshError(f"{exc}; {down}") from None

    def connection(self, name: str) -> McpConnection:
        for connection in self.connections:
            if connection.name == name:
                return connection
        raise KeyError(
            f"no connection named '{name}' (connections: {', '.join(c.name for c in self.connections)})"
        )

    # -- discovery -----------------------------------------------------------------------------------

    async def start(self, *, fail_fast: bool = False) -> None:
        """Discover every server now; with `fail_fast`, ConfigError listing every server that failed."""
        await self.get_tool_callbacks()
        if fail_fast and self.errors:
            raise ConfigError([f"MCP server '{name}': {reason}" for name, reason in self.errors.items()])

    async def get_tool_callbacks(self) -> list[ToolCallback]:
        if self._callbacks is not None and all(c.name in self._tools for c in self.connections):
            return list(self._callbacks)
        await asyncio.gather(*(self._discovered(c) for c in self.connections))
        return list(self._assemble())

    async def _discovered(self, connection: McpConnection) -> list[ToolDefinition] | None:
        cached = self._tools.get(connection.name)
        if cached is not None:
            return cached
        running = self._discovering.get(connection.name)
        if running is None:
            running = asyncio.ensure_future(self._discover(connection))
            self._discovering[connection.name] = running
            running.add_done_callback(partial(self._discovery_done, connection.name))
        try:
            return await asyncio.shield(running)
        except McpConnectionError as exc:
            self.errors[connection.name] = exc.reason
            logger.warning("%s; its tools are left out until it answers", exc)
            return None

    def _discovery_done(self, name: str, _future: asyncio.Future[Any]) -> None:
        self._discovering.pop(name, None)

    async def _discover(self, connection: McpConnection) -> list[ToolDefinition]:
        from mcp.shared.exceptions import MCPError

        info = await connection.connect()
        try:
            listed = await connection.list_tools()
        except MCPError as exc:
            raise McpConnectionError(
                connection.name, f"tools/list failed: {exc.message} (code {exc.code})"
            ) from None
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            where = ".".join(str(p) for p in first["loc"])
            raise McpConnectionError(
                connection.name,
                f"its tools/list answer breaks the MCP schema ({where}: {first['msg']}); fix the server",
            ) from None
        tools: list[ToolDefinition] = []
        for tool in listed:
            problem = _check_schema(connection.name, tool)
            if problem is not None:
                logger.warning(problem)
                continue
            definition = _definition(connection.name, tool)
            if self.tool_filter is None or self.tool_filter(info, definition):
                tools.append(definition)
        previous = self._known.get(connection.name)
        self._tools[connection.name] = self._known[connection.name] = tools
        self.errors.pop(connection.name, None)
        self._callbacks = None
        if previous is not None and previous != tools and self.publisher is not None:
            await self.publisher.publish(ToolsChanged(connection.name, tuple(tools)))
        return tools

    def _assemble(self) -> list[ToolCallback]:
        """Names made unique across connections, in connection order (deterministic)."""
        if self._callbacks is not None:
            return self._callbacks
        entries: list[tuple[McpConnection, McpConnectionInfo, ToolDefinition]] = []
        for connection in self.connections:
            tools = self._tools.get(connection.name)
            if tools is None or connection.info is None:
                continue
            entries.extend((connection, connection.info, tool) for tool in tools)
        named = assign_names(
            self.name_generator, [(info, tool) for _c, info, tool in entries], self.reserved_names
        )
        callbacks: list[ToolCallback] = [
            McpToolCallback(connection, definition, self.meta_converter)
            for (connection, _info, _tool), definition in zip(entries, named, strict=True)
        ]
        if all(c.name in self._tools for c in self.connections):
            self._callbacks = callbacks
        return callbacks

    def invalidate(self, connection: str | None = None) -> None:
        """Forget the tools of `connection` (default: every connection)."""
        if connection is None:
            self._tools.clear()
        else:
            self._tools.pop(connection, None)
        self._callbacks = None

    def _on_server_change(self, connection: McpConnection) -> None:
        """A server announced a new tool list: forget it and discover again at once, so listeners hear."""
        self.invalidate(connection.name)
        task = asyncio.get_running_loop().create_task(self._discovered(connection))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def aclose(self) -> None:
        await asyncio.gather(*(c.close() for c in self.connections), return_exceptions=True)
