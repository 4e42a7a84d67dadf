"""The stateless MCP endpoint: one raw ASGI app serving both protocol eras on one path.

A request with `MCP-Protocol-Version: 2026-07-28` (or any version we do not know from the handshake era)
takes the modern path: the `_meta` envelope and the routing headers are checked, `server/discover` is
served and results carry `resultType` and the server-info stamp. A request without the header, or with a
handshake-era version, takes the legacy stateless path: no session, `initialize` answered, nothing kept.

Both eras' `tools/list` results are rendered at start-up and again only when the tool list changes (a
gateway's catalog servers come and go; `refresh_tools`), so a `tools/list` reads a rendered answer.
Everything on the call path reads precomputed state; the per-request SDK machinery is not involved.

A `tools/call` is read and checked once (`tool_call.py`), then served on its path: a ToolContext's event
stream (`context_stream.py`, with the input-required round's answers: `input_round.py`), a Stream[str]'s
chunks (`streaming.py`), or one answer, run inline or started as a task (`_run`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from time import perf_counter
from typing import TYPE_CHECKING, Any

from pydantic_core import from_json, to_json

from .. import observation
from ..observation import TRACE_HEADERS
from ..propagation import HeaderAllowlist, budget_deadline, call_deadline, propagating
from ..sse import MEDIA_TYPE, encode, wait_for_disconnect
from ..tools.context import ToolContext
from ..tools.wrapper import MeshToolWrapper
from ..tools.wrapper_registry import MeshToolWrapperRegistry
from .body import BODY_READ, BodyRead, BodyRefused, read_body
from .features import FeatureError, FeatureHandlers
from .guard import HostGuard
from .mcp_error import McpError
from .notify import ChangeStreams, StreamLimitError
from .param_headers import HEADER_PREFIX, header_params
from .request_state import RequestStateSigner
from .streaming import OpenStreams, serve_stream, streams_to
from .versions import (
    HANDSHAKE_VERSIONS,
    HEADER_MISMATCH,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    LATEST_HANDSHAKE_VERSION,
    META_CLIENT_CAPABILITIES,
    META_PROTOCOL_VERSION,
    META_SERVER_INFO,
    META_SUBSCRIPTION_ID,
    METHOD_NOT_FOUND,
    MODERN_VERSIONS,
    NAME_BEARING_METHODS,
    PARSE_ERROR,
    UNSUPPORTED_PROTOCOL_VERSION,
)

if TYPE_CHECKING:  # a tools/call's reading: loaded with the first one
    from .tool_call import ToolCall

__all__ = ["McpEndpoint", "McpError"]

logger = logging.getLogger("mesh_framework.protocol")

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def _first_tool_call(params: dict[str, Any], registry: MeshToolWrapperRegistry, **options: Any) -> ToolCall:
    """The first tools/call read: loads protocol/tool_call.py and puts its reader in `_read_tool_call`'s
    place, which later calls reach directly."""
    global _read_tool_call  # noqa: PLW0603 - rebound once, so that later calls pay no check
    from .tool_call import read_tool_call

    _read_tool_call = read_tool_call
    return read_tool_call(params, registry, **options)


_read_tool_call: Callable[..., ToolCall] = _first_tool_call

_JSON_HEADERS = [(b"content-type", b"application/json")]
_SSE_HEADERS = [(b"content-type", MEDIA_TYPE.encode()), (b"cache-control", b"no-cache")]
_ROUTING_HEADERS = (b"mcp-protocol-version", b"mcp-method", b"mcp-name")
_CACHE_HINTS = {"ttlMs": 0, "cacheScope": "private"}
TOOLS_CHANGED = "notifications/tools/list_changed"
_LEGACY_ONLY_METHODS = {
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
}


class _Request:
    """The parts of one HTTP request the endpoint looks at, read from the raw ASGI headers once."""

    __slots__ = (
        "accept",
        "content_length",
        "content_type",
        "duplicated",
        "host",
        "method",
        "name",
        "origin",
        "params",
        "raw",
        "scope",
        "traced",
        "version",
    )

    def __init__(self, scope: Scope) -> None:
        raw_headers: list[tuple[bytes, bytes]] = scope["headers"]
        self.scope = scope
        self.accept = self.content_type = self.host = self.origin = b""
        self.content_length = -1
        self.version = self.method = self.name = None
        self.duplicated: bytes | None = None
        self.params: dict[str, str] = {}
        self.raw = raw_headers
        self.traced = False  # a trace header came: tracing reads the raw headers only then
        for key, value in raw_headers:
            if key == b"accept":
                self.accept = value
            elif key == b"content-type":
                self.content_type = value
            elif key == b"host":
                self.host = value
            elif key == b"origin":
                self.origin = value
            elif key == b"content-length":
                self.content_length = int(value) if value.isdigit() else -1
            elif key in _ROUTING_HEADERS:
                text = value.decode("latin-1").strip()
                if key == b"mcp-protocol-version":
                    if self.version is not None:
                        self.duplicated = key
                    self.version = text
                elif key == b"mcp-method":
                    if self.method is not None:
                        self.duplicated = key
                    self.method = text
                else:
                    if self.name is not None:
                        self.duplicated = key
                    self.name = text
            elif key in TRACE_HEADERS:
                self.traced = True
            elif key.startswith(HEADER_PREFIX):
                self.params[key[len(HEADER_PREFIX) :].decode("latin-1")] = value.decode("latin-1")

    @property
    def owner(self) -> str | None:
        """Who the access token names, when MCP authorization checked one (read by the task paths only)."""
        return _owner(self.scope)


class McpEndpoint:
    """Raw ASGI app for `POST {path}`; give it to a Starlette `Route` (or any ASGI router)."""

    def __init__(
        self,
        registry: MeshToolWrapperRegistry,
        *,
        server_name: str,
        server_version: str,
        instructions: str | None = None,
        max_body_bytes: int = 4 * 1024 * 1024,
        body_timeout: float = 30.0,
        guard: HostGuard | None = None,
        state_signer: RequestStateSigner | None = None,
        propagation: HeaderAllowlist | None = None,
        features: FeatureHandlers | None = None,
    ) -> None:
        self.registry = registry
        self.server_info = {"name": server_name, "version": server_version}
        self.instructions = instructions
        self.max_body_bytes = max_body_bytes
        self.body_timeout = body_timeout
        self.guard = guard
        self.state_signer = state_signer or RequestStateSigner()
        self.propagation = propagation or HeaderAllowlist()
        self.capabilities: dict[str, Any] = {"tools": {"listChanged": False}, "logging": {}}
        self.features = features or FeatureHandlers()
        self.capabilities.update(self.features.capabilities())
        # MCP's long-running work over background jobs, when served: the tasks extension of 2026-07-28
        # (jobs/mcp_tasks.py) and the experimental tasks of 2025-11-25 (jobs/experimental_tasks.py).
        self.tasks: Any = None
        self.experimental_tasks: Any = None
        # Told of every tool call served: (tool, isError, seconds). Metrics set it when the app is built.
        self.on_tool_call: Callable[[str, bool, float], None] | None = None
        self.open_streams = OpenStreams()  # Stream[str] calls being served (ended when the agent stops)
        self.streams = ChangeStreams()  # GET streams (handshake era) and subscriptions/listen (2026-07-28)
        self.refresh_tools()

    def announce_tool_changes(self) -> None:
        """Declare `tools.listChanged`: this agent's tools can change while it runs (a gateway's do)."""
        self.capabilities["tools"]["listChanged"] = True

    def tools_changed(self) -> None:
        """The tool set changed: render `tools/list` again and notify the clients listening for it."""
        self.refresh_tools()
        self.streams.publish(TOOLS_CHANGED)

    def close_streams(self) -> None:
        """End every notification stream (the agent stops; their clients reconnect elsewhere)."""
        self.streams.close()

    def refresh_tools(self) -> None:
        """Render the `tools/list` results; called once, after the registry is complete."""
        tools = [wrapper.descriptor for wrapper in self.registry]
        self._legacy_tools = {"tools": tools}
        tasks = self.experimental_tasks
        self._tasks_tools = (
            {"tools": [tasks.tool_descriptor(w) for w in self.registry]} if tasks is not None else None
        )
        self._header_params = {
            w.name: params for w in self.registry if (params := header_params(w.descriptor["inputSchema"]))
        }
        # 2026-07-28 list and discover results carry caching hints (SEP-2549); tools never change here,
        # but the list is private to the agent's configuration, so no shared caching is promised.
        self._modern_tools = self._modern({"tools": tools, **_CACHE_HINTS})

    # -- ASGI ------------------------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["method"] != "POST":
            if scope["method"] == "GET" and self.capabilities["tools"]["listChanged"]:
                await self._change_stream(_Request(scope), send, receive)
                return
            await _send_plain(
                send,
                405,
                b"Method Not Allowed: this MCP endpoint is stateless, use POST",
                [(b"allow", b"POST")],
            )
            return
        request = _Request(scope)
        if self.guard is not None:
            refusal = self.guard.check(request.host, request.origin)
            if refusal is not None:
                await _send_error(send, refusal[0], McpError(INVALID_REQUEST, refusal[1]), None)
                return
        media_type = request.content_type.split(b";", 1)[0].strip().lower()
        if media_type != b"application/json":
            error = McpError(INVALID_REQUEST, "Content-Type must be application/json")
            await _send_error(send, 415, error, None)
            return
        wants_sse = self._negotiate(request.accept)
        if wants_sse is None:
            error = McpError(
                INVALID_REQUEST,
                "Not Acceptable: the Accept header must allow application/json or text/event-stream",
            )
            await _send_error(send, 406, error, None)
            return
        read: BodyRead | None = scope.get(BODY_READ)  # the authorization middleware read it already
        try:
            if read is None:
                body = await read_body(
                    receive,
                    max_bytes=self.max_body_bytes,
                    timeout=self.body_timeout,
                    declared=request.content_length,
                )
                message = from_json(body)
            else:
                message = read.result()
        except BodyRefused as refused:
            close = [(b"connection", b"close")] if refused.close else []
            message = McpError(INVALID_REQUEST, refused.message).to_wire(None)
            await _send_body(send, refused.status, to_json(message), [*_JSON_HEADERS, *close])
            return
        except ValueError as exc:
            await _send_error(send, 400, McpError(PARSE_ERROR, f"Parse error: {exc}"), None)
            return
        try:
            await self._handle(message, request, wants_sse, send, receive)
        except Exception:
            # A bug of ours, not the client's: log it, answer a generic JSON-RPC error (once a response
            # has started, the connection is all that can be closed).
            logger.exception("MCP request failed")
            request_id = message.get("id") if isinstance(message, dict) else None
            with contextlib.suppress(Exception):
                await _send_error(
                    send, 500, McpError(INTERNAL_ERROR, "Internal error; see the agent's log"), request_id
                )

    @staticmethod
    def _negotiate(accept: bytes) -> bool | None:
        """False for a JSON answer, True when the client accepts only an event stream, None if neither."""
        if not accept or b"application/json" in accept or b"*/*" in accept or b"application/*" in accept:
            return False
        if b"text/event-stream" in accept:
            return True
        return None

    # -- JSON-RPC --------------------------------------------------------------------------------------

    async def _handle(
        self, message: Any, request: _Request, wants_sse: bool, send: Send, receive: Receive
    ) -> None:
        if not isinstance(message, dict):
            text = (
                "batches are not supported"
                if isinstance(message, list)
                else "a request must be a JSON object"
            )
            await _send_error(send, 400, McpError(INVALID_REQUEST, f"Invalid request: {text}"), None)
            return
        request_id = message.get("id")
        method = message.get("method")
        if message.get("jsonrpc") != "2.0" or not isinstance(method, str):
            if "method" not in message and ("result" in message or "error" in message):
                await _send_plain(send, 202, b"")  # a response to nothing we asked: accept and drop
                return
            error = McpError(
                INVALID_REQUEST, "Invalid request: 'jsonrpc' must be \"2.0\" and 'method' a string"
            )
            await _send_error(send, 400, error, request_id)
            return
        if "id" not in message:
            await _send_plain(send, 202, b"")  # notifications need no answer on a stateless server
            return
        params = message.get("params")
        if params is not None and not isinstance(params, dict):
            await _send_error(send, 400, McpError(INVALID_PARAMS, "'params' must be an object"), request_id)
            return
        modern = request.version is not None and request.version not in HANDSHAKE_VERSIONS
        try:
            if modern:
                self._check_envelope(request, method, params)
            elif request.duplicated is None and _envelope_version(params) in MODERN_VERSIONS:
                raise McpError(
                    HEADER_MISMATCH,
                    "The MCP-Protocol-Version header is missing; the request's "
                    "_meta names a 2026-07-28 envelope, so send the header too",
                )
            if modern and method == "subscriptions/listen":
                await self._listen(params or {}, request_id, request, send, receive)
                return
            if method == "tools/call":
                await self._call_tool(
                    params or {},
                    request_id,
                    send,
                    modern=modern,
                    wants_sse=wants_sse,
                    request=request,
                    receive=receive,
                )
                return
            if self.features.serves(method):  # prompts, resources, completion, MCP extensions' methods
                result = await self._feature(method, params or {}, modern)
            elif (
                method.startswith("tasks/")
                and (tasks := self.tasks if modern else self.experimental_tasks) is not None
            ):
                answering = tasks.handle(method, params or {}, request.owner)
                if method == "tasks/result":  # waits for the task's end: stop waiting if the client left
                    answering = _unless_disconnected(answering, receive)
                result = await answering
                if result is None:
                    return
                result = self._modern(result) if modern else result
            else:
                result = self._dispatch(method, params or {}, modern, request.version)
        except McpError as error:
            await _send_error(
                send,
                error.status if modern or error.code in (PARSE_ERROR, INVALID_REQUEST) else 200,
                error,
                request_id,
                sse=wants_sse,
            )
            return
        await _send_result(send, request_id, result, sse=wants_sse)

    async def _change_stream(self, request: _Request, send: Send, receive: Receive) -> None:
        """`GET` of a handshake-era client whose agent's tools can change: a stream of
        `notifications/tools/list_changed` (2026-07-28 clients use `subscriptions/listen` instead)."""
        refusal = self.guard.check(request.host, request.origin) if self.guard is not None else None
        if refusal is not None:
            await _send_error(send, refusal[0], McpError(INVALID_REQUEST, refusal[1]), None)
        elif request.version is not None and request.version not in HANDSHAKE_VERSIONS:
            text = b"Method Not Allowed: protocol 2026-07-28 has no GET stream; use subscriptions/listen"
            await _send_plain(send, 405, text, [(b"allow", b"GET, POST")])
        elif b"text/event-stream" not in request.accept:
            error = McpError(INVALID_REQUEST, "Not Acceptable: a GET stream needs Accept: text/event-stream")
            await _send_error(send, 406, error, None)
        else:
            try:
                await self.streams.serve(
                    send, receive, wants=(TOOLS_CHANGED,), render=lambda m: {"jsonrpc": "2.0", "method": m}
                )
            except StreamLimitError as exc:
                await _send_plain(send, 503, str(exc).encode(), [(b"retry-after", b"5")])

    async def _listen(
        self, params: dict[str, Any], request_id: Any, request: _Request, send: Send, receive: Receive
    ) -> None:
        """2026-07-28 `subscriptions/listen`: acknowledge what is honoured, then stream it (SEP-2575)."""
        wanted = params.get("notifications")
        if not isinstance(wanted, dict):
            raise McpError(
                INVALID_PARAMS,
                'subscriptions/listen needs params.notifications, e.g. {"toolsListChanged": true}',
            )
        if "taskIds" in wanted and self.tasks is not None and not self.tasks.declared(params):
            raise self.tasks.missing_extension("Task status notifications (notifications.taskIds)")
        if b"text/event-stream" not in request.accept and b"*/*" not in request.accept:
            raise McpError(INVALID_REQUEST, "subscriptions/listen answers a stream: accept text/event-stream")
        # Only the tool list can change (with a gateway); what cannot is left out of the acknowledgement.
        tools = wanted.get("toolsListChanged") is True and self.capabilities["tools"]["listChanged"]
        honoured = {"toolsListChanged": True} if tools else {}
        meta = {META_SUBSCRIPTION_ID: request_id}
        ack = {"notifications": honoured, "_meta": meta}
        first = [{"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged", "params": ack}]
        last = {"jsonrpc": "2.0", "id": request_id, "result": self._modern({"_meta": meta})}
        if not honoured:  # nothing will ever be sent: acknowledge and end at once
            await send({"type": "http.response.start", "status": 200, "headers": _SSE_HEADERS})
            await send({"type": "http.response.body", "body": _sse_frame(first[0]), "more_body": True})
            await send({"type": "http.response.body", "body": _sse_frame(last)})
            return
        try:
            await self.streams.serve(
                send,
                receive,
                wants=(TOOLS_CHANGED,),
                render=lambda m: {"jsonrpc": "2.0", "method": m, "params": {"_meta": meta}},
                first=first,
                last=last,
            )
        except StreamLimitError as exc:
            raise McpError(INTERNAL_ERROR, str(exc), status=503) from None

    async def _feature(self, method: str, params: dict[str, Any], modern: bool) -> dict[str, Any]:
        """Prompts, resources, completion and the MCP extensions' methods (`protocol/features.py`)."""
        try:
            result = await self.features.handle(method, params, modern=modern, signer=self.state_signer)
        except FeatureError as exc:
            status = 500 if exc.code == INTERNAL_ERROR else 400
            raise McpError(exc.code, exc.message, data=exc.data, status=status) from None
        return self._modern(result) if modern else result

    def _check_envelope(self, request: _Request, method: str, params: dict[str, Any] | None) -> None:
        """The 2026-07-28 ladder: the envelope, then the headers against the body, then the version."""
        if request.duplicated is not None:
            raise McpError(
                HEADER_MISMATCH, f"The {request.duplicated.decode()} header appears more than once"
            )
        meta = (params or {}).get("_meta")
        if (
            not isinstance(meta, dict)
            or META_PROTOCOL_VERSION not in meta
            or META_CLIENT_CAPABILITIES not in meta
        ):
            raise McpError(
                INVALID_PARAMS,
                f"params._meta must be an object carrying the required "
                f"'{META_PROTOCOL_VERSION}' and '{META_CLIENT_CAPABILITIES}' envelope keys",
            )
        if not isinstance(meta[META_CLIENT_CAPABILITIES], dict):
            raise McpError(INVALID_PARAMS, f"params._meta['{META_CLIENT_CAPABILITIES}'] must be an object")
        if meta[META_PROTOCOL_VERSION] != request.version:
            raise McpError(
                HEADER_MISMATCH,
                f"The MCP-Protocol-Version header ({request.version}) does not match "
                f"params._meta['{META_PROTOCOL_VERSION}'] ({meta[META_PROTOCOL_VERSION]})",
            )
        if request.method is None:
            raise McpError(HEADER_MISMATCH, f"The Mcp-Method header is missing; send 'Mcp-Method: {method}'")
        if request.method != method:
            raise McpError(
                HEADER_MISMATCH,
                f"The Mcp-Method header ({request.method}) does not match the request's method ({method})",
            )
        name_field = NAME_BEARING_METHODS.get(method)
        if name_field is not None:
            target = (params or {}).get(name_field)
            if request.name is None:
                raise McpError(
                    HEADER_MISMATCH,
                    f"The Mcp-Name header is missing; {method} requires it to repeat params.{name_field}",
                )
            if request.name != target:
                raise McpError(
                    HEADER_MISMATCH,
                    f"The Mcp-Name header ({request.name}) does not match params.{name_field} ({target})",
                )
        if request.version not in MODERN_VERSIONS:
            raise McpError(
                UNSUPPORTED_PROTOCOL_VERSION,
                f"Unsupported protocol version: {request.version}",
                data={"supported": list(MODERN_VERSIONS), "requested": request.version},
            )

    def _dispatch(
        self, method: str, params: dict[str, Any], modern: bool, version: str | None
    ) -> dict[str, Any]:
        if method == "tools/list":
            if modern:
                return self._modern_tools
            if self._tasks_tools is not None and version == self.experimental_tasks.version:
                return self._tasks_tools  # with each tool's execution.taskSupport
            return self._legacy_tools
        if modern:
            if method == "server/discover":
                discover: dict[str, Any] = {
                    "supportedVersions": list(MODERN_VERSIONS),
                    "capabilities": self.capabilities,
                    "serverInfo": self.server_info,
                    **_CACHE_HINTS,
                }
                if self.instructions:
                    discover["instructions"] = self.instructions
                return self._modern(discover)
            if method in _LEGACY_ONLY_METHODS:
                raise McpError(
                    METHOD_NOT_FOUND,
                    f"Method not found: {method} does not exist in protocol 2026-07-28",
                    data=method,
                    status=404,
                )
        else:
            if method == "initialize":
                return self._initialize(params)
            if method in ("ping", "logging/setLevel"):
                return {}
        raise McpError(METHOD_NOT_FOUND, f"Method not found: {method}", data=method, status=404)

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        requested = params.get("protocolVersion")
        version = requested if requested in HANDSHAKE_VERSIONS else LATEST_HANDSHAKE_VERSION
        capabilities = self.capabilities
        tasks = self.experimental_tasks
        if tasks is not None and version == tasks.version:
            capabilities = {**capabilities, "tasks": tasks.capability}
        result: dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": capabilities,
            "serverInfo": self.server_info,
        }
        if self.instructions:
            result["instructions"] = self.instructions
        return result

    def _modern(self, result: dict[str, Any]) -> dict[str, Any]:
        """Stamp a result for 2026-07-28: `resultType` (unless the result set one) and the server info."""
        meta = result.get("_meta")
        stamp = {**meta, META_SERVER_INFO: self.server_info} if meta else {META_SERVER_INFO: self.server_info}
        return {"resultType": "complete", **result, "_meta": stamp}

    async def _call_tool(
        self,
        params: dict[str, Any],
        request_id: Any,
        send: Send,
        *,
        modern: bool,
        wants_sse: bool,
        request: _Request,
        receive: Receive,
    ) -> None:
        """A `tools/call`, read and checked once, served on its path inside the call's server span."""
        call = _read_tool_call(
            params,
            self.registry,
            modern=modern,
            version=request.version,
            header_params=self._header_params,
            header_values=request.params,
            tasks=self.tasks,
            experimental_tasks=self.experimental_tasks,
        )
        wrapper, arguments = call.wrapper, call.arguments
        forwarded = self.propagation.capture(request.raw, arguments and arguments.get("_mesh_headers"))
        deadline = budget_deadline(forwarded.get("x-mesh-timeout")) if forwarded else None
        with (
            propagating(forwarded, deadline),
            observation.tracer.incoming_call(
                call.name, request_id, params, request.raw, trace_headers=request.traced
            ) as span,
        ):
            if wrapper.signature.event_stream and not call.as_task:  # a ToolContext, or Stream[str]
                streamed = await self._stream(
                    call, params, request_id, modern=modern, send=send, request=request, receive=receive
                )
                if streamed:
                    return
            started = perf_counter()
            result = await self._run(call, params, request, deadline)
            self._served(wrapper, result, started)
            span.result(result)
        await _send_result(send, request_id, self._modern(result) if modern else result, sse=wants_sse)

    async def _stream(
        self,
        call: ToolCall,
        params: dict[str, Any],
        request_id: Any,
        *,
        modern: bool,
        send: Send,
        request: _Request,
        receive: Receive,
    ) -> bool:
        """Serve a call as an event stream: a ToolContext's notifications then its result, or a
        Stream[str]'s chunks (asked with a progress token, or to a tool that takes a ToolContext too);
        False, with nothing sent, for a Stream[str] asked without a token (its joined text, buffered)."""
        wrapper = call.wrapper
        stamp = self._modern if modern else _unstamped
        if not wrapper.signature.streams:
            from .context_stream import serve_context_stream  # a tool taking a ToolContext: its first call

            owner = request.owner if call.as_modern_task else None

            def run(context: ToolContext) -> Awaitable[dict[str, Any]]:
                if call.as_modern_task:  # served as a 2026-07-28 task, of `owner`
                    running: Awaitable[dict[str, Any]] = self.tasks.call(wrapper, params, owner, context)
                    return running
                return wrapper.call(params.get("arguments"), context, deadline=call_deadline())

            def answered(result: dict[str, Any], started: float) -> None:
                observation.tracer.record_result(result)  # on the call's span
                self._served(wrapper, result, started)

            await serve_context_stream(
                wrapper,
                params,
                request_id,
                run,
                modern=modern,
                send=send,
                signer=self.state_signer,
                stamp=stamp,
                on_result=answered,
                sse_only=self._negotiate(request.accept) is True,  # else answered JSON if nothing streamed
            )
            return True
        token = streams_to(params, request.accept)
        if token is None and not wrapper.signature.wants_context:
            return False
        await serve_stream(
            wrapper,
            params,
            request_id,
            token,
            modern=modern,
            send=send,
            receive=receive,
            stamp=stamp,
            on_tool_call=self.on_tool_call,
            open_streams=self.open_streams,
        )
        return True

    async def _run(
        self, call: ToolCall, params: dict[str, Any], request: _Request, deadline: float | None
    ) -> dict[str, Any]:
        """A call answered once: run inline (its CallToolResult), or started as a task of the caller's
        (2025-11-25's experimental task, or 2026-07-28's: a CreateTaskResult)."""
        result: dict[str, Any]
        if call.as_task:
            result = await self.experimental_tasks.call(call.wrapper, call.arguments, request.owner)
        elif call.as_modern_task:
            result = await self.tasks.call(call.wrapper, params, request.owner)  # a CreateTaskResult
        elif call.wrapper.slots:  # its dependencies may ask the client for input: it relays their questions
            from .input_round import call_context  # a tool with dependencies: its first call

            modern = request.version is not None and request.version not in HANDSHAKE_VERSIONS
            context = call_context(call.name, params, None, modern=modern, signer=self.state_signer)
            result = await call.wrapper.call(call.arguments, context, deadline=deadline)
        else:
            result = await call.wrapper.call(call.arguments, deadline=deadline)
        return result

    def _served(self, wrapper: MeshToolWrapper, result: dict[str, Any], started: float) -> None:
        """One call served, told to `on_tool_call` (the metrics)."""
        if self.on_tool_call is not None:
            self.on_tool_call(wrapper.name, bool(result.get("isError")), perf_counter() - started)


async def _unless_disconnected(answering: Awaitable[Any], receive: Receive) -> Any:
    """`answering`'s result, or None once the client disconnected first (the request body is read, so
    the next ASGI message is the disconnect): an abandoned wait holds no task and no concurrency slot."""
    work, watch = asyncio.ensure_future(answering), asyncio.ensure_future(wait_for_disconnect(receive))
    try:
        done, _pending = await asyncio.wait((work, watch), return_when=asyncio.FIRST_COMPLETED)
    finally:
        watch.cancel()
        if not work.done():
            work.cancel()
    return work.result() if work in done else None


def _unstamped(result: dict[str, Any]) -> dict[str, Any]:
    return result


def _owner(scope: Scope) -> str | None:
    """The caller's identity from the access token MCP authorization verified (`security/`), if any."""
    state = scope.get("state")
    token = state.get("access_token") if isinstance(state, dict) else None
    if token is None:
        return None
    return getattr(token, "subject", None) or getattr(token, "client_id", None)


def _envelope_version(params: Mapping[str, Any] | None) -> Any:
    meta = params.get("_meta") if params else None
    return meta.get(META_PROTOCOL_VERSION) if isinstance(meta, dict) else None


def _sse_frame(message: dict[str, Any]) -> bytes:
    return encode(to_json(message), event="message")


async def _send_body(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    # A length lets the server write head and body at once (no chunked framing).
    headers = [*headers, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _send_plain(
    send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    await _send_body(send, status, body, [(b"content-type", b"text/plain; charset=utf-8"), *(headers or [])])


async def _send_json(send: Send, status: int, message: dict[str, Any], *, sse: bool) -> None:
    if sse:
        await _send_body(send, status, _sse_frame(message), _SSE_HEADERS)
    else:
        await _send_body(send, status, to_json(message), _JSON_HEADERS)


async def _send_result(send: Send, request_id: Any, result: dict[str, Any], *, sse: bool) -> None:
    await _send_json(send, 200, {"jsonrpc": "2.0", "id": request_id, "result": result}, sse=sse)


async def _send_error(
    send: Send, status: int, error: McpError, request_id: Any, *, sse: bool = False
) -> None:
    await _send_json(send, status, error.to_wire(request_id), sse=sse)
