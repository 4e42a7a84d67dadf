"""`GuardedEdge`: the ASGI middleware every HTTP surface is mounted behind.

Per request, before the app sees it: Host and Origin (421 / 403), the concurrency bound (503), the
content-type rule (415, `content.py`), a declared body over the limit (413). A JSON body is then read
whole within the limit and the body timeout (413 / 408, chunked bodies included) and parsed strictly once
(400), and the app reads it replayed; a form streams through, counted against its limit as the app reads
it. So no surface, its authentication included, ever holds more than the limit or meets JSON it cannot
parse. After: an exception that escapes the app is one log line and a JSON 500 that says nothing of it.
A bearer token is verified once (`identity`) and the caller left in `scope["state"]["access_token"]`.

Refusals are JSON in the surface's own shape: `{"detail": "..."}` on an agent (FastAPI's, as its routes
answer), a JSON-RPC error below A2A's path, `{"status": "error", "message": "..."}` on the registry and
the console (MCP Mesh's registry's). A refused body also closes the connection (the agent's HTTP protocol
reads the rest of it first, so the client reads the answer).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic_core import from_json

from ..failures import exception_text
from ..security.caller import serving_caller
from .content import FORM_TYPES, body_media_type, is_json, route_accepts
from .policy import EdgePolicy

__all__ = ["GuardedEdge", "edge_of"]

logger = logging.getLogger("mesh_framework.edge")

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_BODY_DONE = -1.0
_NOT_JSON = "request body is not valid JSON"


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _shaped(status: int, message: str, surface: str) -> dict[str, Any]:
    if surface == "jsonrpc":  # A2A's callers read a JSON-RPC error: -32700 for a body that is not JSON
        code = -32700 if status == 400 and message.startswith(_NOT_JSON) else -32600
        return {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
    if surface == "agent":
        return {"detail": message}
    return {"status": "error", "message": message}


async def send_refusal(
    send: Send, status: int, message: str, *, surface: str, close: bool = False, head: bool = False
) -> None:
    body = json.dumps(_shaped(status, message, surface)).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"),
    ]
    if close:
        headers.append((b"connection", b"close"))
    if status == 503:
        headers.append((b"retry-after", b"1"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else body})


class GuardedEdge:
    """Every request to `app` passes the edge's checks first (see the module's docstring).

    Usage: `Starlette(routes=..., middleware=[Middleware(GuardedEdge, policy=EdgePolicy(...))])`, the
    first middleware, or `GuardedEdge(app, policy)` around any ASGI app. Attributes of the wrapped app
    stay reachable through the edge.
    """

    def __init__(
        self,
        app: Any,
        policy: EdgePolicy,
        *,
        routes: Any = None,
        busy: Callable[[], int] | None = None,
    ) -> None:
        self.app = app
        self.policy = policy
        self.identity = policy.identity  # set later when the verifier is known after the app is built
        self._routes = routes  # where a form's route is looked up; default: the app's
        self._busy = busy  # requests in flight beside this edge's (the MCP path's), for the concurrency bound
        self.in_flight = 0
        self._origin_pattern = re.compile(policy.origin_regex) if policy.origin_regex else None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.app, name)

    def routes_of_app(self) -> Any:
        if self._routes is not None:
            return self._routes
        app = self.app
        while app is not None:  # through the middleware Starlette stacks in front of its router
            routes = getattr(app, "routes", None)
            if routes is not None:
                return routes
            app = getattr(app, "app", None)
        return ()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind != "http":
            if kind == "websocket" and self._refusal(scope, _headers(scope)) is not None:
                await send({"type": "websocket.close", "code": 1008})
                return
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        surface = self._surface(scope["path"])
        refusal = self._refusal(scope, headers) or self._too_busy(scope)
        if refusal is not None:
            status, message = refusal
            head = scope["method"] == "HEAD"
            await send_refusal(send, status, message, surface=surface, close=status in (408, 413), head=head)
            return
        presented = await self._identify(scope, headers) if self.identity is not None else None
        reader: _BodyReader | _Replay | None = None
        body_limit = self._body_limit(scope, headers)
        if body_limit is not None:
            reader = _BodyReader(receive, body_limit, self.policy.body_timeout)
            if is_json(body_media_type(headers.get(b"content-type", b""))):
                replay = await self._read_json(reader, receive)
                if isinstance(replay, _Refused):
                    await send_refusal(send, replay.status, replay.message, surface=surface, close=True)
                    return
                reader = replay
        self.in_flight += 1
        state = scope.get("state")
        try:
            caller = state.get("access_token") if isinstance(state, dict) else None
            with serving_caller(caller, presented if caller is not None else None):
                await self._serve(scope, receive, send, reader, surface)
        finally:
            self.in_flight -= 1

    def _surface(self, path: str) -> str:
        """How this request's refusals are shaped: `jsonrpc` below a JSON-RPC path, else the policy's."""
        for prefix in self.policy.jsonrpc_paths:
            if path == prefix or path.startswith(prefix + "/"):
                return "jsonrpc"
        return self.policy.surface

    async def _serve(
        self, scope: Scope, receive: Receive, send: Send, reader: _BodyReader | _Replay | None, surface: str
    ) -> None:
        """The app's answer; the edge's instead when the body is refused while the app reads it, and a JSON
        500 (one log line) when the app fails before it answered."""
        started = replaced = False

        async def guarded_send(message: Message) -> None:
            nonlocal started, replaced
            if replaced:
                return  # the edge answered instead (a refused body); the app's answer is dropped
            if message["type"] == "http.response.start":
                started = True
                refused = reader.refused if reader is not None else None
                if refused is not None:
                    replaced = True
                    await send_refusal(send, refused.status, refused.message, surface=surface, close=True)
                    return
            await send(message)

        try:
            await self.app(scope, reader.receive if reader is not None else receive, guarded_send)
        except Exception as exc:
            refused = reader.refused if reader is not None else None
            if refused is not None:
                if not started:
                    await send_refusal(send, refused.status, refused.message, surface=surface, close=True)
                return
            logger.error("%s %s failed: %s", scope["method"], scope["path"], exception_text(exc))
            logger.debug("the failure's traceback", exc_info=True)
            if not started:
                failed = f"the {self.policy.surface} failed to answer; see its log"
                await send_refusal(send, 500, failed, surface=surface)

    async def _read_json(self, reader: _BodyReader, receive: Receive) -> _Replay | _Refused:
        """A JSON body read whole (within the limits) and parsed strictly once, here: NaN, Infinity, lone
        surrogates, nesting past 200 levels and trailing bytes are the caller's mistake (400) on every
        surface, never a failure of the one behind it. The app reads the body replayed."""
        try:
            body = await reader.read_all()
        except _Refused as refused:
            return refused
        problem = json_problem(body)
        if problem is not None:
            return _Refused(400, f"{_NOT_JSON}: {problem}")
        return _Replay(body, receive)

    def _too_busy(self, scope: Scope) -> tuple[int, str] | None:
        limit = self.policy.max_concurrency
        if limit is None:
            return None
        busy = self.in_flight + (self._busy() if self._busy is not None else 0)
        if busy < limit:
            return None
        logger.warning(
            "refused %s %s: %d requests in flight (server.max_concurrency)",
            scope["method"],
            scope["path"],
            busy,
        )
        return (
            503,
            f"the {self.policy.surface} serves {limit} requests at once (server.max_concurrency); retry",
        )

    def _refusal(self, scope: Scope, headers: dict[bytes, bytes]) -> tuple[int, str] | None:
        guard = self.policy.guard
        if guard is not None:
            origin = headers.get(b"origin", b"")
            refusal = guard.check(headers.get(b"host", b""), origin)
            if refusal is not None and not (refusal[0] == 403 and self._cors_allows(origin)):
                return refusal[0], _settings_named(refusal[1], self.policy.surface)
        if scope.get("method") not in _BODY_METHODS:
            return None
        length = headers.get(b"content-length")
        chunked = b"chunked" in headers.get(b"transfer-encoding", b"").lower()
        if length is not None and not length.strip().isdigit():
            return 400, "Content-Length must be a number"
        if not chunked and (length is None or int(length) == 0):
            return None  # no body
        media_type = body_media_type(headers.get(b"content-type", b""))
        if is_json(media_type):
            declared_limit = self.policy.max_body_bytes
        elif media_type in FORM_TYPES and route_accepts(self.routes_of_app(), scope, media_type):
            declared_limit = self.policy.max_form_bytes or self.policy.max_body_bytes
        else:
            shown = media_type or "none"
            return 415, (
                f"Content-Type {shown!r} is not accepted here: send the body as application/json"
                + (" (this route takes no form)" if media_type in FORM_TYPES else "")
            )
        if length is not None and int(length) > declared_limit:
            return 413, _too_large(declared_limit, self.policy.surface)
        return None

    def _cors_allows(self, origin: bytes) -> bool:
        pattern = self._origin_pattern
        return pattern is not None and pattern.fullmatch(origin.decode("latin-1")) is not None

    def _body_limit(self, scope: Scope, headers: dict[bytes, bytes]) -> int | None:
        if scope["method"] not in _BODY_METHODS:
            return None  # never read (uvicorn stops reading a body nobody reads)
        media_type = body_media_type(headers.get(b"content-type", b""))
        if media_type in FORM_TYPES:
            return self.policy.max_form_bytes or self.policy.max_body_bytes
        return self.policy.max_body_bytes

    async def _identify(self, scope: Scope, headers: dict[bytes, bytes]) -> str | None:
        """The bearer token presented, once verified (the caller left in the scope's state); None when
        there is none or it was refused."""
        scheme, _, token = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            return None
        assert self.identity is not None
        try:
            caller = await self.identity(token)
        except Exception as exc:  # a verifier's failure leaves the caller unknown, never a traceback
            logger.warning("token verification failed: %s", type(exc).__name__)
            caller = None
        if caller is None:
            return None
        scope.setdefault("state", {})["access_token"] = caller
        return token


class _BodyReader:
    """The app's `receive`, counting body bytes against the limit and the time against the timeout."""

    __slots__ = ("_deadline", "_limit", "_receive", "_size", "_timeout", "refused")

    def __init__(self, receive: Receive, limit: int, timeout: float) -> None:
        self._receive = receive
        self._limit = limit
        self._timeout = timeout
        self._size = 0
        self._deadline: float | None = None
        self.refused: _Refused | None = None

    async def read_all(self) -> bytes:
        """The whole body (raises `_Refused` over the limit or the time)."""
        chunks = []
        while True:
            message = await self.receive()
            if message["type"] != "http.request":
                break  # the client left: what came is all there is
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        return b"".join(chunks)

    async def receive(self) -> Message:
        if self.refused is not None:
            raise self.refused
        if self._deadline == _BODY_DONE:
            return await self._receive()  # the body is whole: the app waits for a disconnect
        loop = asyncio.get_running_loop()
        if self._deadline is None:
            self._deadline = loop.time() + self._timeout
        try:
            message = await asyncio.wait_for(self._receive(), max(self._deadline - loop.time(), 0.001))
        except TimeoutError:
            self.refused = _Refused(
                408,
                f"request body not received within {self._timeout:g} s (server.body_timeout); send it faster",
            )
            raise self.refused from None
        if message["type"] == "http.request":
            self._size += len(message.get("body", b""))
            if self._size > self._limit:
                self.refused = _Refused(413, _too_large(self._limit, ""))
                raise self.refused
            if not message.get("more_body", False):
                self._deadline = _BODY_DONE
        return message


class _Replay:
    """The app's `receive` for a body the edge has read: the body once, then the client's own messages."""

    __slots__ = ("_body", "_receive", "refused")

    def __init__(self, body: bytes, receive: Receive) -> None:
        self._body: bytes | None = body
        self._receive = receive
        self.refused: _Refused | None = None

    async def receive(self) -> Message:
        body = self._body
        if body is None:
            return await self._receive()
        self._body = None
        return {"type": "http.request", "body": body, "more_body": False}


def json_problem(body: bytes) -> str | None:
    """Why `body` is not strict JSON (as JSON is defined: no NaN or Infinity, no lone surrogates), or
    None. Nesting is bounded at 200 levels, before any parser's recursion runs out."""
    if not body.strip():
        return None  # an empty body: the route says whether it needs one
    try:
        from_json(body, allow_inf_nan=False)
    except ValueError as exc:
        return str(exc)
    return None


def _headers(scope: Scope) -> dict[bytes, bytes]:
    return {name: value for name, value in scope["headers"]}


def _too_large(limit: int, surface: str) -> str:
    setting = "server.max_body_bytes" if surface in ("agent", "") else "its body limit"
    return f"request body exceeds the limit of {limit} bytes ({setting}); send less"


def _settings_named(reason: str, surface: str) -> str:
    if surface == "agent":
        return reason
    return reason.replace("not in server.allowed_hosts", "not this machine's (loopback only)").replace(
        "not in server.allowed_origins", "not a page of this machine (loopback only)"
    )


def edge_of(app: Any) -> EdgePolicy | None:
    """The policy of the `GuardedEdge` in front of `app`: the outermost wrapper, or a Starlette app's first
    middleware (its outermost); None when requests can reach the app around the edge."""
    for _ in range(16):
        if isinstance(app, GuardedEdge):
            return app.policy
        edge = getattr(app, "edge", None)  # the agent's app: its web side behind its own edge
        if isinstance(edge, GuardedEdge):
            return edge.policy
        middleware = getattr(app, "user_middleware", None)
        if middleware is not None:
            first = middleware[0] if middleware else None
            if first is not None and first.cls is GuardedEdge:
                return first.kwargs["policy"]  # type: ignore[no-any-return]
            return None
        app = getattr(app, "app", None)
        if app is None:
            return None
    return None
