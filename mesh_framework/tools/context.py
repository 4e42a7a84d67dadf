"""Per-call context a tool can ask for by type, to report progress and send log messages to the client."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ..security.access_token import AccessToken
from ..security.caller import current_access_token

__all__ = ["ToolContext"]

NotificationSink = Callable[[dict[str, Any]], Awaitable[None]]

_CALLER: Any = object()  # `access_token` not given: the caller of the request being served

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


class ToolContext:
    """What a tool knows about the call it serves. Declare a parameter of this type to receive it.

    Notifications reach the client when it can receive them (it accepts an event stream and, for
    progress, sent a `progressToken`); otherwise they are dropped, never raised. A 2026-07-28 client
    receives log messages only at or above the level its request's `_meta` asks for (none if it asks for
    none); a handshake-era client receives them all.

    `access_token` is the caller's verified token (client id, subject, scopes, audience, expiry, claims),
    None when no token verifier is configured.

    Usage::

        @mesh_tool()
        async def crunch(n: int, ctx: ToolContext) -> int:
            await ctx.report_progress(0, n)
            ...
    """

    __slots__ = (
        "_encode_state",
        "_sink",
        "access_token",
        "client_capabilities",
        "dependency_rounds",
        "entries",
        "input_responses",
        "log_threshold",
        "modern",
        "progress_token",
        "request_id",
        "request_state",
        "tool_name",
    )

    def __init__(
        self,
        tool_name: str,
        *,
        request_id: Any = None,
        progress_token: str | int | None = None,
        sink: NotificationSink | None = None,
        log_level: str | None = "debug",
        modern: bool = False,
        client_capabilities: Mapping[str, Any] | None = None,
        input_responses: Mapping[str, Any] | None = None,
        request_state: Any = None,
        encode_state: Callable[[str, Any], str] | None = None,
        entries: Mapping[str, Any] | None = None,
        access_token: AccessToken | None = _CALLER,
    ) -> None:
        self.tool_name = tool_name
        # Who called: the token MCP authorization or the edge verified (None without a verifier).
        self.access_token: AccessToken | None = (
            current_access_token() if access_token is _CALLER else access_token
        )
        # Free-form values the caller attaches (Spring AI's ToolContext map); JSON-safe ones travel to
        # other MCP servers as `_meta` through tool callbacks.
        self.entries: dict[str, Any] = dict(entries or {})
        self.modern = modern
        self.client_capabilities = client_capabilities or {}
        # The client's answers to a previous InputRequired, by the keys the tool chose, and its state.
        self.input_responses = input_responses or {}
        self.request_state = request_state
        # Its dependencies' input rounds (tools/relayed_input.py), for a tool with dependencies.
        self.dependency_rounds: Any = None
        self._encode_state = encode_state
        self.request_id = request_id
        self.progress_token = progress_token
        self._sink = sink
        # Index into LOG_LEVELS of the lowest level sent; past the end means "send none".
        self.log_threshold = LOG_LEVELS.index(log_level) if log_level in LOG_LEVELS else len(LOG_LEVELS)

    @classmethod
    def of(cls, entries: Mapping[str, Any], tool_name: str = "") -> ToolContext:
        """A context carrying only `entries`, for calling tool callbacks from code."""
        return cls(tool_name, entries=entries)

    def detached(self) -> ToolContext:
        """This context for work that outlives its request (a job's body): the call's data, no stream."""
        return ToolContext(
            self.tool_name,
            request_id=self.request_id,
            modern=self.modern,
            client_capabilities=self.client_capabilities,
            input_responses=self.input_responses,
            request_state=self.request_state,
            encode_state=self._encode_state,
            entries=self.entries,
            access_token=self.access_token,
        )

    def encode_state(self, state: Any) -> str:
        """Sign `state` for the client to hand back as `requestState` (see `InputRequired`)."""
        if self._encode_state is None:
            raise RuntimeError("this call cannot carry request state")
        return self._encode_state(self.tool_name, state)

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        if self._sink is None or self.progress_token is None:
            return
        params: dict[str, Any] = {"progressToken": self.progress_token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self._sink({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})

    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        if level not in LOG_LEVELS:
            raise ValueError(f"log level {level!r} is not one of {', '.join(LOG_LEVELS)}")
        if self._sink is None or LOG_LEVELS.index(level) < self.log_threshold:
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger is not None:
            params["logger"] = logger
        await self._sink({"jsonrpc": "2.0", "method": "notifications/message", "params": params})

    async def debug(self, data: Any) -> None:
        await self.log("debug", data)

    async def info(self, data: Any) -> None:
        await self.log("info", data)

    async def warning(self, data: Any) -> None:
        await self.log("warning", data)

    async def error(self, data: Any) -> None:
        await self.log("error", data)
