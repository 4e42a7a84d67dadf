"""`McpConnection`: a lazy, shared client connection to one catalog server (stdio, SSE or streamable HTTP).

Nothing starts until first use. The connection lives in one owner task (the SDK's client holds task
groups that must be entered and left in the same task); calls from other tasks use its session. A server
that cannot be started or reached raises `McpConnectionError` naming it and saying why (see `failures`),
and the next use tries again; a server that goes away (a crashed process, a closed stream) is reconnected
on the next call. A stdio command written `python` or `python3` is the interpreter this process runs on.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import sys
import threading
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Generator, Mapping
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

import anyio
import httpx2

from ..catalog.definitions import HttpDefinition, McpServerDefinition, SseDefinition, StdioDefinition
from ..errors import MeshError
from .connection_info import McpConnectionInfo

if TYPE_CHECKING:  # the SDK's client is imported on first connection: agents without servers never pay for it
    import mcp_types as types
    from mcp.client.client import Client
    from mcp.shared.dispatcher import ProgressFnT

__all__ = ["HeaderSource", "McpConnection", "McpConnectionError", "launch_command"]

logger = logging.getLogger("mesh_framework.callbacks")


def _describe(exc: BaseException) -> str:
    """`failures.describe(exc)`: the failures' module is loaded by a first failure."""
    from .failures import describe

    return describe(exc)


T = TypeVar("T")
HeaderSource = (
    Mapping[str, str] | Callable[[], Mapping[str, str] | Awaitable[Mapping[str, str]]] | httpx2.Auth
)
ToolsChangedHook = Callable[["McpConnection"], None]

# Errors that mean the connection itself is gone (as opposed to an error answer from the server).
_BROKEN = (
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
    anyio.EndOfStream,
    OSError,
    httpx2.TransportError,
    EOFError,
)


class McpConnectionError(MeshError):
    """A catalog server could not be started, reached or initialized; `server` names it."""

    def __init__(self, server: str, reason: str) -> None:
        self.server = server
        self.reason = reason
        super().__init__(f"MCP server '{server}': {reason}")


class _HeaderAuth(httpx2.Auth):
    """Adds headers from a callable to every request (a token that rotates, a per-call identity)."""

    def __init__(self, source: Callable[[], Mapping[str, str] | Awaitable[Mapping[str, str]]]) -> None:
        self._source = source

    async def async_auth_flow(self, request: httpx2.Request) -> AsyncIterator[httpx2.Request]:  # type: ignore[override]
        headers = self._source()
        if inspect.isawaitable(headers):
            headers = await headers
        request.headers.update(dict(headers))
        yield request

    def sync_auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
        headers = self._source()
        if inspect.isawaitable(headers):
            raise RuntimeError("an async header provider needs an async HTTP client")
        request.headers.update(dict(headers))
        yield request


class _StderrLog:
    """A stdio server's stderr: read by a thread, logged at DEBUG, the last lines kept for error messages.

    A real file descriptor is needed (the child process inherits it), whatever `sys.stderr` is here.
    """

    def __init__(self, server: str) -> None:
        read_fd, write_fd = os.pipe()
        self.file: TextIO = os.fdopen(write_fd, "w")
        self.lines: deque[str] = deque(maxlen=20)
        self._server = server
        self._reader = threading.Thread(
            target=self._read, args=(read_fd,), daemon=True, name=f"stderr {server}"
        )
        self._reader.start()

    def _read(self, fd: int) -> None:
        with os.fdopen(fd, "r", errors="replace") as stream:
            for line in stream:
                text = line.rstrip()
                if text:
                    self.lines.append(text)
                    logger.debug("MCP server '%s' stderr: %s", self._server, text)

    def last(self) -> str:
        self._reader.join(timeout=0.2)  # a crashed server's last words arrive just after its exit
        return self.lines[-1] if self.lines else ""

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.file.close()


def launch_command(command: str) -> str:
    """The program a stdio definition starts: `python`/`python3` is this interpreter (the agent's venv,
    activated or not); any other command is looked up on PATH as written."""
    return sys.executable if command in _PYTHON_NAMES and sys.executable else command


_PYTHON_NAMES = frozenset({"python", "python3"})


def _framework_client_info() -> dict[str, str]:
    """The framework as the client, for a connection given no client info (its version is read from the
    package's metadata, so only then)."""
    from .._version import DISTRIBUTION, __version__

    return {"name": DISTRIBUTION, "version": __version__}


class McpConnection:
    """One catalog server, connected on first use and shared by every caller.

    `headers` (HTTP servers) are static, or a callable (sync or async) asked on every request, or an httpx2
    auth flow (an OAuth client's tokens); they are sent beside the definition's own headers.
    `on_tools_changed` (and every `add_tools_listener`) is called when the server announces that its tool
    list changed (`notifications/tools/list_changed`, or a 2026-07-28 `subscriptions/listen` event).
    """

    def __init__(
        self,
        name: str,
        definition: McpServerDefinition,
        *,
        client_info: Mapping[str, str] | None = None,
        connect_timeout: float = 10.0,
        call_timeout: float | None = 30.0,
        headers: HeaderSource | None = None,
        on_tools_changed: ToolsChangedHook | None = None,
        mode: str = "auto",
    ) -> None:
        self.name = name
        self.mode = mode  # "auto": 2026-07-28 when the server speaks it, else the handshake; or "legacy"
        self.definition = definition
        self.client_info = dict(client_info or _framework_client_info())
        self.connect_timeout = connect_timeout
        self.call_timeout = call_timeout
        self.headers = headers
        self._tools_listeners: list[ToolsChangedHook] = [on_tools_changed] if on_tools_changed else []
        self.info: McpConnectionInfo | None = None
        self.last_error: str | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._client: Client | None = None
        self._owner: asyncio.Task[None] | None = None
        self._connecting: asyncio.Future[Client] | None = None
        self._closing: asyncio.Event | None = None
        self._stderr: _StderrLog | None = None

    def add_tools_listener(self, listener: ToolsChangedHook) -> None:
        """Call `listener(connection)` whenever the server announces a changed tool list."""
        self._tools_listeners.append(listener)

    @property
    def connected(self) -> bool:
        return self._client is not None

    def __repr__(self) -> str:
        state = "connected" if self.connected else "idle"
        return f"<McpConnection {self.name} {self.definition.type} {state}>"

    # -- lifecycle -----------------------------------------------------------------------------------

    async def connect(self) -> McpConnectionInfo:
        """Start (or reach) the server and initialize, once; concurrent callers share the attempt."""
        await self._session()
        assert self.info is not None
        return self.info

    async def _session(self) -> Client:
        if self._client is not None:
            return self._client
        loop = asyncio.get_running_loop()
        if self.loop is not None and self.loop is not loop and self.loop.is_running():
            return await self._on_own_loop(self._session())
        if self._connecting is None or self._connecting.done():
            self.loop = loop
            self._connecting = loop.create_future()
            self._closing = asyncio.Event()
            self._owner = loop.create_task(
                self._own(self._connecting, self._closing), name=f"mcp:{self.name}"
            )
        connecting = self._connecting
        try:
            return await asyncio.wait_for(asyncio.shield(connecting), self.connect_timeout)
        except TimeoutError:
            await self._stop_owner(grace=0)
            self.last_error = f"did not start and initialize within {self.connect_timeout}s"
            raise McpConnectionError(self.name, self.last_error) from None
        except McpConnectionError:
            raise
        except Exception as exc:  # the owner reports every start failure through the future
            said = self._stderr.last() if self._stderr is not None else ""
            from .failures import start_failure

            self.last_error = start_failure(self.definition, self._command(), exc, said)
            raise McpConnectionError(self.name, self.last_error) from None

    async def _own(self, ready: asyncio.Future[Client], closing: asyncio.Event) -> None:
        """The owner task: enters the client, publishes it, waits until asked to close."""
        import mcp_types as types
        from mcp.client.client import Client

        try:
            async with contextlib.AsyncExitStack() as stack:
                client = Client(
                    await self._transport(stack),
                    client_info=types.Implementation(**self.client_info),
                    read_timeout_seconds=self.call_timeout,
                    message_handler=self._on_message,
                    cache=None,
                    mode=self.mode,
                )
                await stack.enter_async_context(client)
                self.info = self._info(client)
                self._client = client
                self.last_error = None
                if not ready.done():
                    ready.set_result(client)
                logger.info(
                    "MCP server '%s' connected (%s, protocol %s)",
                    self.name,
                    self.definition.type,
                    client.protocol_version,
                )
                async with anyio.create_task_group() as group:
                    if self._listens_for_changes(client):
                        group.start_soon(self._listen, client)
                    await closing.wait()
                    group.cancel_scope.cancel()
        except BaseException as exc:  # reported to whoever waits, never lost
            if isinstance(exc, asyncio.CancelledError):
                ready.cancel()  # closed, or timed out: whoever waited already knows
                raise
            if not ready.done():
                ready.set_exception(
                    exc if isinstance(exc, Exception) else McpConnectionError(self.name, _describe(exc))
                )
            else:
                self.last_error = _describe(exc)
                logger.warning("MCP server '%s' disconnected: %s", self.name, self.last_error)
        finally:
            self._client = None

    async def _transport(self, stack: contextlib.AsyncExitStack) -> Any:
        from mcp.client.sse import sse_client
        from mcp.client.stdio import StdioServerParameters, stdio_client
        from mcp.client.streamable_http import streamable_http_client

        definition = self.definition
        if isinstance(definition, StdioDefinition):
            parameters = StdioServerParameters(
                command=self._command(),
                args=list(definition.args),
                env=dict(definition.env) or None,
                cwd=definition.cwd,
            )
            self._stderr = _StderrLog(self.name)
            stack.callback(self._stderr.close)
            return stdio_client(parameters, errlog=self._stderr.file)
        assert isinstance(definition, (SseDefinition, HttpDefinition))
        static = dict(definition.headers)
        auth: httpx2.Auth | None = None
        if isinstance(self.headers, httpx2.Auth):  # an OAuth client's tokens (security/outbound.py)
            auth = self.headers
        elif callable(self.headers):
            auth = _HeaderAuth(self.headers)
        elif self.headers:
            static.update(self.headers)
        if isinstance(definition, SseDefinition):
            return sse_client(definition.url, headers=static, timeout=self.connect_timeout, auth=auth)
        http = httpx2.AsyncClient(
            headers=static,
            auth=auth,
            trust_env=False,
            timeout=httpx2.Timeout(self.connect_timeout, read=self.call_timeout or 300.0),
        )
        await stack.enter_async_context(http)
        return streamable_http_client(definition.url, http_client=http)

    def _command(self) -> str:
        definition = self.definition
        return launch_command(definition.command) if isinstance(definition, StdioDefinition) else ""

    def _info(self, client: Client) -> McpConnectionInfo:
        session = client.session
        server_info = session.server_info
        capabilities = session.server_capabilities
        return McpConnectionInfo(
            server_name=self.name,
            server_info=server_info.model_dump(mode="json", exclude_none=True) if server_info else {},
            capabilities=capabilities.model_dump(mode="json", by_alias=True, exclude_none=True)
            if capabilities
            else {},
            protocol_version=session.protocol_version,
            client_info=dict(self.client_info),
            instructions=session.instructions,
        )

    @staticmethod
    def _listens_for_changes(client: Client) -> bool:
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        tools = client.server_capabilities.tools
        return client.protocol_version in MODERN_PROTOCOL_VERSIONS and bool(tools and tools.list_changed)

    async def _listen(self, client: Client) -> None:
        """2026-07-28 servers announce changes only to a `subscriptions/listen` stream."""
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                async for _event in subscription:
                    self._tools_changed()
        except Exception as exc:
            logger.debug("MCP server '%s': change subscription ended (%s)", self.name, _describe(exc))

    async def _on_message(self, message: Any) -> None:
        import mcp_types as types

        if isinstance(message, types.ToolListChangedNotification):
            self._tools_changed()

    def _tools_changed(self) -> None:
        logger.info("MCP server '%s' changed its tool list", self.name)
        for listener in list(self._tools_listeners):
            listener(self)

    async def close(self) -> None:
        """Stop the server process or close the HTTP session. The next use connects again."""
        if self.loop is not None and self.loop is not asyncio.get_running_loop() and self.loop.is_running():
            await self._on_own_loop(self.close())
            return
        await self._stop_owner()

    async def _stop_owner(self, grace: float = 5.0) -> None:
        """Ask the owner task to close the client (a stdio server gets `grace` seconds to exit)."""
        owner, self._owner = self._owner, None
        if self._closing is not None:
            self._closing.set()
        try:
            # asyncio.wait never raises the owner's errors, and a cancellation of this task propagates
            # (it leaves the owner to finish closing on its own).
            if owner is not None and not owner.done():
                if grace > 0:
                    await asyncio.wait({owner}, timeout=grace)
                if not owner.done():
                    owner.cancel()
                    await asyncio.wait({owner})
        finally:
            self._client = None
            self._connecting = None

    # -- requests ------------------------------------------------------------------------------------

    async def list_tools(self) -> list[types.Tool]:
        """Every tool of the server (all pages)."""

        async def fetch(client: Client) -> list[types.Tool]:
            tools: list[types.Tool] = []
            cursor: str | None = None
            for _page in range(1000):
                page = await client.list_tools(cursor=cursor)
                tools.extend(page.tools)
                cursor = page.next_cursor
                if not cursor:
                    break
            return tools

        return await self._with_session(fetch, "tools/list")

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any],
        *,
        meta: Mapping[str, Any] | None = None,
        progress: ProgressFnT | None = None,
        timeout: float | None = None,
    ) -> types.CallToolResult:
        async def call(client: Client) -> types.CallToolResult:
            return await client.call_tool(
                name,
                dict(arguments),
                read_timeout_seconds=timeout,
                progress_callback=progress,
                meta=dict(meta) if meta else None,  # type: ignore[arg-type]
            )

        return await self._with_session(call, f"tools/call {name}")

    async def _with_session(self, action: Callable[[Client], Awaitable[T]], what: str) -> T:
        loop = asyncio.get_running_loop()
        if self.loop is not None and self.loop is not loop and self.loop.is_running():
            return await self._on_own_loop(self._with_session(action, what))
        import mcp_types as types
        from mcp.shared.exceptions import MCPError

        client = await self._session()
        try:
            return await action(client)
        except MCPError as exc:
            if exc.code == types.CONNECTION_CLOSED:
                await self._stop_owner()
                raise McpConnectionError(
                    self.name, f"connection lost during {what} ({exc.message})"
                ) from None
            raise
        except _BROKEN as exc:
            await self._stop_owner()
            raise McpConnectionError(self.name, f"connection lost during {what} ({_describe(exc)})") from None

    async def _on_own_loop(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run on the loop that owns the session (a call made from another thread's loop)."""
        assert self.loop is not None
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, self.loop))
