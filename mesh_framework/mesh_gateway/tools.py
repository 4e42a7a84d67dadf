"""`MeshGatewayTool`: one tool of the mesh served by the gateway; a call goes through the mesh's proxy.

The proxy (`mesh/proxy.py`) is the one agents' dependencies use: failover to another agent serving the
tool, timeouts, a client span, the propagated headers (the caller's `Authorization` among them, see
`gateway.py`) and the call budget. The gateway adds nothing of its own to a call: arguments are checked
by the agent that runs it, and its answer, an error included, is the client's.

A call carries its round of a multi-round-trip exchange through: the client's declared capabilities, its
`inputResponses` and the `requestState` the agent issued travel to the agent unchanged, and an agent's
`input_required` answer comes back unchanged. The state is the agent's, signed by the agent: the gateway
neither reads nor signs it (`PassThroughState`). A `Stream[str]` tool called with a progress token has its
chunks relayed as progress notifications as they come, then its result as the agent gave it (structured
content included). Any other tool's progress and log notifications are relayed as they come when the
client asked for them (a progress token, a log level): the agent is asked for the same.

An agent that refuses a call with a JSON-RPC error (no such tool, invalid params, a tampered
`requestState`, an undeclared client capability) refuses the client with that same error: the gateway's
endpoint answers nothing before the agent's first frame (`protocol/context_stream.py`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ..errors import ToolExecutionError
from ..mesh.proxy import McpMeshToolProxy, ProviderRefused
from ..protocol.mcp_error import McpError
from ..protocol.param_headers import header_params, mirrored_headers
from ..protocol.request_state import RequestStateSigner
from ..protocol.versions import (
    META_CLIENT_CAPABILITIES,
    META_LOG_LEVEL,
    META_SERVER_INFO,
    METHOD_NOT_FOUND,
)
from ..specs import ToolSpec
from ..tools.context import LOG_LEVELS, ToolContext
from ..tools.forwarding import forwarding_signature
from ..tools.wrapper import MeshToolWrapper, error_result
from .offers import ServedTool

__all__ = ["MeshGatewayTool", "PassThroughState"]

logger = logging.getLogger("mesh_framework.mesh_gateway")


class PassThroughState(RequestStateSigner):
    """The gateway's `requestState` handling: an agent's state travels as the opaque text it is (the agent
    verifies its own signature); the gateway issues none."""

    def encode(self, tool: str, state: Any) -> str:
        return state if isinstance(state, str) else super().encode(tool, state)

    def decode(self, tool: str, token: Any) -> Any:
        return token


def _relay() -> None:  # the spec's function: a gateway tool has no Python body
    """A tool of the mesh, served by the gateway."""


class MeshGatewayTool(MeshToolWrapper):
    """A wrapper whose call relays to the agents serving `served` through `proxy`."""

    __slots__ = ("mirrored", "proxy", "served")

    def __init__(self, served: ServedTool, proxy: McpMeshToolProxy) -> None:
        spec = ToolSpec(
            function=_relay,
            name=served.name,
            capability=served.capability,
            description=served.description,
            tags=served.tags,
        )
        super().__init__(
            key=f"mesh_gateway.{served.name}",
            name=served.name,
            spec=spec,
            # Every gateway tool takes a call's context: the endpoint answers it as an event stream, so
            # progress and chunks reach the client, and the context carries the round of a multi-round call.
            signature=forwarding_signature(served.input_schema, wants_context=True),
            target=_relay,
            description=served.description,
            timeout=None,  # the proxy's (tools.timeout) and the caller's budget bound the call
        )
        self.served = served
        self.proxy = proxy
        self.mirrored = header_params(served.input_schema)  # arguments sent in Mcp-Param-* headers too

    async def call(
        self,
        arguments: Mapping[str, Any] | None,
        context: ToolContext | None = None,
        *,
        deadline: float | None = None,
    ) -> dict[str, Any]:
        try:
            if context is not None and context.progress_token is not None and self.served.streams:
                running = self._stream(arguments, context)
            else:
                running = self._call(arguments, context)
            return await self._within_budget(running, deadline)
        except ProviderRefused as refused:  # the agent's JSON-RPC error is the client's
            logger.info("gateway: tool '%s' refused: %s", self.name, refused.refusal)
            raise _as_mcp_error(refused) from None
        except ToolExecutionError as exc:
            logger.warning("gateway: tool '%s' failed: %s", self.name, exc)
            return error_result(str(exc))

    async def _call(self, arguments: Mapping[str, Any] | None, context: ToolContext | None) -> dict[str, Any]:
        meta, extra = _round(context)
        relay = None
        if context is not None:
            if context.progress_token is not None:
                meta["progressToken"] = context.progress_token
            if context.log_threshold < len(LOG_LEVELS):
                meta[META_LOG_LEVEL] = LOG_LEVELS[context.log_threshold]
            if "progressToken" in meta or META_LOG_LEVEL in meta:
                relay = _relay_to(context)
        result = await self.proxy.call_result(
            self.served.function_name,
            arguments,
            meta=meta or None,
            extra=extra or None,
            on_notification=relay,
            headers=self._headers(arguments),
        )
        return _as_relayed(result)

    async def _stream(self, arguments: Mapping[str, Any] | None, context: ToolContext) -> dict[str, Any]:
        position = 0

        async def chunk(text: str) -> None:
            nonlocal position
            await context.report_progress(float(position), message=text)
            position += 1

        meta, extra = _round(context)
        result = await self.proxy.stream_result(
            self.served.function_name,
            arguments,
            chunk,
            meta=meta or None,
            extra=extra or None,
            headers=self._headers(arguments),
        )
        return _as_relayed(result)

    def _headers(self, arguments: Mapping[str, Any] | None) -> dict[str, str] | None:
        return mirrored_headers(self.mirrored, arguments) or None if self.mirrored and arguments else None


def _as_mcp_error(refused: ProviderRefused) -> McpError:
    """The agent's refusal as the gateway's: the same code, message and data; on the 2026-07-28 path the
    agent's HTTP status (a handshake-era agent answers 200: the status the endpoint gives that code)."""
    legacy = 404 if refused.code == METHOD_NOT_FOUND else 400
    status = refused.status if refused.status >= 400 else legacy
    return McpError(refused.code, refused.refusal, data=refused.data, status=status)


def _round(context: ToolContext | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """What of the client's request travels to the agent: its declared capabilities (`_meta`) and the
    round of a multi-round-trip call (`inputResponses`, `requestState`)."""
    meta: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    if context is not None:
        if context.modern and context.client_capabilities:
            meta[META_CLIENT_CAPABILITIES] = dict(context.client_capabilities)
        if context.input_responses:
            extra["inputResponses"] = dict(context.input_responses)
        if context.request_state is not None:
            extra["requestState"] = context.request_state
    return meta, extra


def _relay_to(context: ToolContext) -> Callable[[dict[str, Any]], Awaitable[None]]:
    """The agent's progress and log notifications, sent on to the client as its own call's (its token,
    its log level): anything else, or malformed, is dropped."""

    async def relay(message: dict[str, Any]) -> None:
        params = message.get("params")
        if not isinstance(params, dict):
            return
        method = message.get("method")
        if method == "notifications/progress":
            progress, total, text = params.get("progress"), params.get("total"), params.get("message")
            if isinstance(progress, int | float) and not isinstance(progress, bool):
                await context.report_progress(
                    float(progress),
                    float(total) if isinstance(total, int | float) else None,
                    text if isinstance(text, str) else None,
                )
        elif method == "notifications/message" and params.get("level") in LOG_LEVELS:
            named = params.get("logger")
            await context.log(params["level"], params.get("data"), named if isinstance(named, str) else None)

    return relay


def _as_relayed(result: Mapping[str, Any]) -> dict[str, Any]:
    """An agent's result as the gateway's: the endpoint stamps its own era's fields (a complete result's
    `resultType`, the server info), so the agent's are dropped; an `input_required` result is kept whole."""
    relayed = dict(result)
    if relayed.get("resultType") == "complete":
        del relayed["resultType"]
    meta = relayed.get("_meta")
    if isinstance(meta, dict) and META_SERVER_INFO in meta:
        meta = {k: v for k, v in meta.items() if k != META_SERVER_INFO}
        if meta:
            relayed["_meta"] = meta
        else:
            del relayed["_meta"]
    return relayed
