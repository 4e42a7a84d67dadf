"""The stateless MCP client our proxies speak: 2026-07-28 first, negotiating down once when asked.

Per endpoint it remembers what worked. A 2026-07-28 server that answers -32022 (or a draft server's
-32004/-32001) tells us what it supports: we take the highest version we speak and retry exactly once. A
server that answers a 400 without a modern error body predates 2026-07-28: we fall back to the
handshake-era stateless POST (no initialize, both Accept types). Answers may be JSON or an event stream
(MCP Mesh agents always answer with a stream).
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx2
from pydantic_core import from_json, to_json

from .. import observation
from ..deadline import Expired
from ..errors import MeshError
from ..propagation import budget_left, propagated_headers
from ..protocol.versions import (
    LATEST_MODERN_VERSION,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_PROTOCOL_VERSION,
    MODERN_VERSIONS,
    NAME_BEARING_METHODS,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from ..sse import MEDIA_TYPE, aiter_events, decode
from .direct_http import ConnectFailed, ConnectionBroken, DirectHttp
from .http_pool import IDEMPOTENT

__all__ = ["LEGACY", "ConnectionLost", "McpTransport", "ProviderUnreachable", "RemoteError"]

logger = logging.getLogger("mesh_framework.mesh")

LEGACY = "legacy"
# Codes that mean "speak another version": the final one, and the draft values seen in pre-release servers.
NEGOTIATION_CODES = {UNSUPPORTED_PROTOCOL_VERSION, -32004, -32001}
MODERN_CODES = {-32020, -32021, *NEGOTIATION_CODES}
ACCEPT = f"application/json, {MEDIA_TYPE}"
# A request head's header lines as the direct client writes them: token names, no CR, LF or NUL in values.
_HEADER_LINES = re.compile(r"(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]+: [\t\x20-\x7e\x80-\xff]*\r\n)*")

DirectTarget = tuple[str, int, bytes]  # host, port, and the start of a request (or a whole request)


class ProviderUnreachable(Exception):
    """The connection failed before the request was sent: retrying elsewhere is safe."""

    def __init__(self, endpoint: str, reason: str) -> None:
        super().__init__(f"{endpoint} is unreachable: {reason}")
        self.endpoint = endpoint


class RemoteError(Exception):
    """The peer answered with a JSON-RPC error, or with something that is not MCP at all."""

    def __init__(
        self,
        message: str,
        *,
        code: int | None = None,
        data: Any = None,
        status: int = 200,
        timed_out: bool = False,
        invalid_token: bool = False,
    ) -> None:
        super().__init__(message)
        self.timed_out = timed_out  # no answer in time: the request may or may not have been processed
        self.invalid_token = invalid_token  # a 401 refusing the bearer token sent (a fresh one may pass)
        self.code = code
        self.data = data
        self.status = status


class ConnectionLost(RemoteError, MeshError):
    """The connection broke after the request was sent, before the answer came (the peer went away
    mid-request: reset, closed, a process killed): the request may or may not have been processed."""

    def __init__(self, endpoint: str, method: str, reason: str) -> None:
        super().__init__(f"{endpoint}: connection failed during {method} ({reason})")
        self.endpoint = endpoint
        self.reason = reason


# What httpx2 raises when the peer goes away mid-request: a read/write on a reset or closed connection,
# or a close before any answer ("Server disconnected without sending a response").
_BROKEN = (httpx2.NetworkError, httpx2.RemoteProtocolError)


class McpTransport:
    """Sends one JSON-RPC request per call over a shared, pooled `httpx2.AsyncClient`."""

    def __init__(
        self,
        http: httpx2.AsyncClient,
        *,
        client_name: str,
        client_version: str,
        timeout: float | None = 30.0,
        https: bool = False,
        direct: DirectHttp | None = None,
    ) -> None:
        self.http = http
        # POSTs whose answer is read whole, to plain-http endpoints, go through the lean client when given
        self.direct = direct
        self._direct_targets: dict[str, DirectTarget | None] = {}
        self.timeout = timeout
        self.https = https  # a TLS mesh: registry endpoints say http://, agents are called over https://
        self._client_info = {"name": client_name, "version": client_version}
        self._ids = itertools.count(1)
        self._eras: dict[str, str] = {}  # url -> the version that worked (or LEGACY)

    def era(self, url: str) -> str:
        return self._eras.get(url, LATEST_MODERN_VERSION)

    async def request(
        self,
        url: str,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        headers: Mapping[str, str] | None = None,
        idempotent: bool = False,
        on_notification: Callable[[dict[str, Any]], Awaitable[None]] | None = None,
    ) -> dict[str, Any]:
        """The `result` of `method` at `url` (an MCP endpoint); raises RemoteError or ProviderUnreachable.

        `headers` (credentials, lowercase names) are sent as given; an allowlisted propagated header wins.
        `on_notification` is handed each notification the answer's event stream carries before the result
        (progress, log messages: the caller put a progress token or a log level in `params._meta`)."""
        timeout = self.timeout if timeout is None else timeout
        era = self.era(url)
        for attempt in range(2):
            status, message = await self._post(
                url,
                method,
                params,
                era,
                timeout,
                extra=headers,
                idempotent=idempotent,
                on_notification=on_notification,
            )
            error = message.get("error") if isinstance(message, dict) else None
            if error is None and status < 400:
                result = message.get("result")
                if not isinstance(result, dict):
                    raise RemoteError(f"{url} answered {method} without a result object", status=status)
                self._eras[url] = era
                return result
            code = error.get("code") if isinstance(error, dict) else None
            if era != LEGACY and attempt == 0:
                next_era = self._negotiate(status, code, error)
                if next_era is not None:
                    logger.info("%s: switching from protocol %s to %s", url, era, next_era)
                    era = next_era
                    continue
            raise _remote_error(url, status, error, message)
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    async def stream(
        self,
        url: str,
        params: Mapping[str, Any],
        *,
        read_timeout: float,
        headers: Mapping[str, str] | None = None,
    ) -> AsyncGenerator[str | dict[str, Any], None]:
        """`tools/call` at `url` with a progress token: yields each progress `message` (a chunk) as it
        arrives, then the result object. Leaving early closes the response, which cancels the call.

        `read_timeout` bounds the wait for each piece; the protocol era is negotiated as in `request`."""
        era = self.era(url)
        for attempt in range(2):
            target, sent, content, request_id, budget = self._prepare(
                url, "tools/call", params, era, None, extra=headers, progress=True
            )
            read = read_timeout if budget is None else min(read_timeout, budget)
            try:
                async with self.http.stream(
                    "POST", target, content=content, headers=sent, timeout=httpx2.Timeout(read)
                ) as response:
                    if response.status_code == 503 and "retry-after" in response.headers:
                        raise ProviderUnreachable(url, "shutting down (HTTP 503, Retry-After)")
                    if response.headers.get("content-type", "").startswith(MEDIA_TYPE):
                        final: dict[str, Any] | None = None
                        async for message in _events(response):
                            if final is not None:
                                continue  # the answer is in: read to the end, so the connection is reused
                            if message.get("method") == "notifications/progress":
                                update = message.get("params") or {}
                                if update.get("progressToken") == request_id and "message" in update:
                                    yield str(update["message"])
                            elif message.get("id") == request_id and "method" not in message:
                                result = message.get("result")
                                if not isinstance(result, dict):
                                    error = message.get("error")
                                    raise _remote_error(url, response.status_code, error, message)
                                final = result
                        if final is None:
                            raise RemoteError(f"{url}: the stream ended before the tools/call result")
                        self._eras[url] = era
                        yield final
                        return
                    await response.aread()
                    message = _decode(response, request_id)
            except httpx2.ConnectError as exc:
                raise ProviderUnreachable(url, str(exc) or type(exc).__name__) from None
            except httpx2.TimeoutException:
                raise RemoteError(
                    f"{url} sent nothing for {read:g}s during a streamed tools/call", timed_out=True
                ) from None
            except httpx2.TransportError as exc:
                raise _failed(url, "a streamed tools/call", exc) from None
            # Not an event stream: an error (maybe "speak another version"), or a result sent whole.
            error = message.get("error") if isinstance(message, dict) else None
            if error is None and response.status_code < 400:
                result = message.get("result") if isinstance(message, dict) else None
                if not isinstance(result, dict):
                    raise RemoteError(f"{url} answered tools/call without a result object")
                self._eras[url] = era
                yield result
                return
            code = error.get("code") if isinstance(error, dict) else None
            if era != LEGACY and attempt == 0:
                next_era = self._negotiate(response.status_code, code, error)
                if next_era is not None:
                    era = next_era
                    continue
            raise _remote_error(url, response.status_code, error, message)

    @staticmethod
    def _negotiate(status: int, code: Any, error: Any) -> str | None:
        """The era to retry in, or None when this error is not about the protocol version."""
        if code in NEGOTIATION_CODES:
            data = error.get("data") if isinstance(error, dict) else None
            supported = data.get("supported") if isinstance(data, dict) else None
            offered = [v for v in supported or [] if isinstance(v, str)]
            modern = sorted(v for v in offered if v in MODERN_VERSIONS)
            if modern:
                return modern[-1]
            return LEGACY
        if status in (400, 404, 406) and code not in MODERN_CODES:
            return LEGACY  # a server from before 2026-07-28
        return None

    async def _post(
        self,
        url: str,
        method: str,
        params: Mapping[str, Any] | None,
        era: str,
        timeout: float | None,
        *,
        extra: Mapping[str, str] | None = None,
        idempotent: bool = False,
        on_notification: Callable[[dict[str, Any]], Awaitable[None]] | None = None,
    ) -> tuple[int, Any]:
        url, headers, content, request_id, timeout = self._prepare(
            url, method, params, era, timeout, extra=extra
        )
        if on_notification is not None:  # the answer is read as it comes, its notifications handed on
            return await self._relaying_post(
                url,
                method,
                headers,
                content,
                request_id=request_id,
                timeout=timeout,
                idempotent=idempotent,
                on_notification=on_notification,
            )
        if self.direct is not None:
            request = self._direct_request(url, headers, content)
            if request is not None:
                return await self._direct_post(
                    url, method, request, request_id, timeout=timeout, idempotent=idempotent
                )
        try:
            response = await self.http.post(
                url,
                content=content,
                headers=headers,
                timeout=None if timeout is None else timeout + 1.0,
                # every method but tools/call only reads; a tool call is repeated only when marked idempotent
                extensions=IDEMPOTENT if idempotent or method != "tools/call" else None,
            )
        except httpx2.ConnectError as exc:
            raise ProviderUnreachable(url, str(exc) or type(exc).__name__) from None
        except httpx2.TimeoutException:
            raise RemoteError(f"{url} did not answer {method} within {timeout}s", timed_out=True) from None
        except httpx2.TransportError as exc:
            raise _failed(url, method, exc) from None
        if response.status_code == 503 and "retry-after" in response.headers:
            # A stopping agent refused the call before processing it (protocol/drain.py): another may take it.
            raise ProviderUnreachable(url, "shutting down (HTTP 503, Retry-After)")
        return response.status_code, _decode(response, request_id)

    async def _relaying_post(
        self,
        url: str,
        method: str,
        headers: Mapping[str, str],
        content: bytes,
        *,
        request_id: int,
        timeout: float | None,
        idempotent: bool,
        on_notification: Callable[[dict[str, Any]], Awaitable[None]],
    ) -> tuple[int, Any]:
        """`_post` reading an event-stream answer as it comes: each notification before the response is
        handed to `on_notification`; the same answers and the same errors."""
        stream = self.http.stream(
            "POST",
            url,
            content=content,
            headers=headers,
            timeout=None if timeout is None else timeout + 1.0,
            extensions=IDEMPOTENT if idempotent or method != "tools/call" else None,
        )
        try:
            async with stream as response:
                if response.status_code == 503 and "retry-after" in response.headers:
                    raise ProviderUnreachable(url, "shutting down (HTTP 503, Retry-After)")
                if not response.headers.get("content-type", "").startswith(MEDIA_TYPE):
                    await response.aread()
                    return response.status_code, _decode(response, request_id)
                answer: Any = {}
                async for message in _events(response):
                    if answer:
                        continue  # the answer is in: read to the end, so the connection is reused
                    if message.get("id") == request_id and "method" not in message:
                        answer = message
                    elif "method" in message and "id" not in message:
                        await on_notification(message)
                return response.status_code, answer
        except httpx2.ConnectError as exc:
            raise ProviderUnreachable(url, str(exc) or type(exc).__name__) from None
        except httpx2.TimeoutException:
            raise RemoteError(f"{url} did not answer {method} within {timeout}s", timed_out=True) from None
        except httpx2.TransportError as exc:
            raise _failed(url, method, exc) from None

    async def _direct_post(
        self,
        url: str,
        method: str,
        request: DirectTarget,
        request_id: int,
        *,
        timeout: float | None,
        idempotent: bool,
    ) -> tuple[int, Any]:
        """`_post` over the direct client: the same answers and the same errors."""
        assert self.direct is not None
        host, port, data = request
        try:
            response = await self.direct.post(
                host,
                port,
                data,
                timeout=None if timeout is None else timeout + 1.0,
                idempotent=idempotent or method != "tools/call",
            )
        except ConnectFailed as exc:
            raise ProviderUnreachable(url, str(exc)) from None
        except Expired:
            raise RemoteError(f"{url} did not answer {method} within {timeout}s", timed_out=True) from None
        except ConnectionBroken as exc:
            raise ConnectionLost(url, method, str(exc)) from None
        if response.status == 503 and response.retry_after:
            raise ProviderUnreachable(url, "shutting down (HTTP 503, Retry-After)")
        return response.status, _decode_body(response.content_type, response.body, request_id)

    def _direct_request(self, url: str, headers: Mapping[str, str], content: bytes) -> DirectTarget | None:
        """Host, port and the whole request for the direct client; None when httpx2 must send it (https,
        a URL with credentials or a query, a header value that is not plain latin-1 text)."""
        try:
            target = self._direct_targets[url]
        except KeyError:
            target = self._direct_targets[url] = _direct_target(url)
        if target is None:
            return None
        block = "".join([f"{name}: {value}\r\n" for name, value in headers.items()])
        if _HEADER_LINES.fullmatch(block) is None or block.count("\n") != len(headers):
            return None
        try:
            head = block.encode("latin-1")
        except UnicodeEncodeError:
            return None
        host, port, start = target
        length = b"content-length: %d\r\n\r\n" % len(content)
        return host, port, b"".join((start, head, length, content))

    def _prepare(
        self,
        url: str,
        method: str,
        params: Mapping[str, Any] | None,
        era: str,
        timeout: float | None,
        *,
        extra: Mapping[str, str] | None,
        progress: bool = False,
    ) -> tuple[str, dict[str, str], bytes, int, float | None]:
        """The URL, headers, body, request id and timeout of one request (RemoteError: budget spent)."""
        body_params = dict(params or {})
        headers = {"Accept": ACCEPT, "Content-Type": "application/json", **(extra or {})}
        if self.https and url.startswith("http://"):
            url = "https://" + url[7:]
        forwarded = propagated_headers()
        if forwarded:
            headers.update(forwarded)
            headers.pop("x-mesh-timeout", None)  # what is left of it goes on, not what came in
            left = budget_left()
            if left is not None:
                if left <= 0:
                    raise RemoteError(
                        f"{url}: {method} not sent, the caller's time budget (X-Mesh-Timeout) is spent",
                        timed_out=True,
                    )
                timeout = left if timeout is None else min(timeout, left)
        observation.tracer.inject(method, body_params, headers)
        if timeout is not None:
            headers["X-Mesh-Timeout"] = _seconds(timeout)
        if era != LEGACY:
            body_params["_meta"] = {
                META_CLIENT_CAPABILITIES: {},  # unless the caller relays its own client's (`mesh gateway`)
                **(body_params.get("_meta") or {}),
                META_PROTOCOL_VERSION: era,
                META_CLIENT_INFO: self._client_info,
            }
            headers["MCP-Protocol-Version"] = era
            headers["Mcp-Method"] = method
            name_field = NAME_BEARING_METHODS.get(method)
            if name_field is not None:
                headers["Mcp-Name"] = str(body_params.get(name_field, ""))
        request_id = next(self._ids)
        if progress:  # a streamed call: its chunks come as progress notifications for this token
            body_params["_meta"] = {**(body_params.get("_meta") or {}), "progressToken": request_id}
        body = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": body_params}
        return url, headers, to_json(body), request_id, timeout


def _seconds(timeout: float) -> str:
    """A budget as `X-Mesh-Timeout` carries it: whole seconds as an integer (MCP Mesh's form), else in
    milliseconds rounded down (never more than is left), at least one (a zero would read as no budget)."""
    millis = max(int(timeout * 1000), 1)
    if millis % 1000 == 0:
        return str(millis // 1000)
    return f"{millis / 1000:.3f}".rstrip("0")


def _failed(url: str, method: str, exc: httpx2.TransportError) -> RemoteError:
    """A transport failure after the connection opened: ConnectionLost when the peer went away."""
    reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if isinstance(exc, _BROKEN):
        return ConnectionLost(url, method, reason)
    return RemoteError(f"{url}: connection failed during {method} ({reason})")


def _remote_error(url: str, status: int, error: Any, message: Any) -> RemoteError:
    text = error.get("message", "error") if isinstance(error, dict) else f"HTTP {status}"
    if status in (401, 403) and isinstance(message, dict):  # an OAuth refusal (security/)
        text = f"{url} refused the call: HTTP {status} {message.get('error_description', '')}".rstrip()
    return RemoteError(
        str(text),
        code=error.get("code") if isinstance(error, dict) else None,
        data=error.get("data") if isinstance(error, dict) else None,
        status=status,
        invalid_token=status == 401 and isinstance(message, dict) and message.get("error") == "invalid_token",
    )


async def _events(response: httpx2.Response) -> AsyncIterator[dict[str, Any]]:
    """The JSON messages of an event stream, each as soon as its event is complete (an event whose data
    is not a JSON object is skipped)."""
    async for event in aiter_events(response.aiter_bytes()):
        try:
            message = from_json(event.data)
        except ValueError:
            continue
        if isinstance(message, dict):
            yield message


def _direct_target(url: str) -> DirectTarget | None:
    """Where the direct client sends a POST to `url`, with the start of its head; None unless plain http."""
    parts = urlsplit(url)
    if parts.scheme != "http" or parts.query or parts.fragment or "@" in parts.netloc or not parts.hostname:
        return None
    try:
        port = parts.port or 80
        start = f"POST {parts.path or '/'} HTTP/1.1\r\nhost: {parts.netloc}\r\n".encode("ascii")
    except (ValueError, UnicodeEncodeError):
        return None
    return parts.hostname, port, start


def _decode(response: httpx2.Response, request_id: int) -> Any:
    return _decode_body(response.headers.get("content-type", ""), response.content, request_id)


def _decode_body(content_type: str, content: bytes, request_id: int) -> Any:
    try:
        if content_type.startswith(MEDIA_TYPE):
            return _from_event_stream(content, request_id)
        return from_json(content) if content else {}
    except ValueError:
        return {}


def _from_event_stream(content: bytes, request_id: int) -> Any:
    """The JSON-RPC response with our id among the stream's events (notifications are skipped)."""
    for event in decode(content):
        message = from_json(event.data)
        if isinstance(message, dict) and message.get("id") == request_id and "method" not in message:
            return message
    return {}
