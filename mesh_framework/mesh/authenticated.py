"""`AuthenticatedTransport`: the MCP transport of one dependency whose calls carry an OAuth client's access
token (security/outbound.py): the token asked for per call (cached by the token source), a call refused
with a 401 `invalid_token` sent once more with a fresh token, and a token that cannot be had turned into
the call's error, naming the token endpoint and why."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from typing import Any

from ..security.client_credentials import TokenEndpointError
from ..security.outbound import Credential
from .transport import McpTransport, RemoteError

__all__ = ["AuthenticatedTransport"]


class AuthenticatedTransport:
    """`request` and `stream` of `transport`, with `credential`'s token in `Authorization`."""

    def __init__(self, transport: McpTransport, credential: Credential) -> None:
        self.transport = transport
        self.credential = credential

    async def _authorization(self, url: str) -> str:
        try:
            return await self.credential.authorization(url)
        except TokenEndpointError as exc:
            raise RemoteError(str(exc)) from None

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
        for attempt in range(2):
            sent = await self._authorization(url)
            try:
                return await self.transport.request(
                    url,
                    method,
                    params,
                    timeout=timeout,
                    headers={**(headers or {}), "authorization": sent},
                    idempotent=idempotent,
                    on_notification=on_notification,
                )
            except RemoteError as exc:
                if attempt == 0 and exc.invalid_token and self.credential.refused(url, sent):
                    continue  # refused before it ran: sent again with a fresh token
                raise
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    async def stream(
        self,
        url: str,
        params: Mapping[str, Any],
        *,
        read_timeout: float,
        headers: Mapping[str, str] | None = None,
    ) -> AsyncGenerator[str | dict[str, Any], None]:
        for attempt in range(2):
            sent = await self._authorization(url)
            answer = self.transport.stream(
                url, params, read_timeout=read_timeout, headers={**(headers or {}), "authorization": sent}
            )
            started = False
            try:
                async for piece in answer:
                    started = True
                    yield piece
                return
            except RemoteError as exc:
                if not started and attempt == 0 and exc.invalid_token and self.credential.refused(url, sent):
                    continue
                raise
            finally:
                await answer.aclose()
