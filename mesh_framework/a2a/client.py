"""`A2aClient`: a tool's handle on one A2A agent, in the A2A specification's dialect or MCP Mesh's.

Declare a parameter typed `A2aClient`; it is injected by type and named after the parameter (or
`Annotated[A2aClient, A2aPeer("name")]`). Settings `a2a.peers.<name>` point it at the agent (`url`,
`token`, `dialect`, `timeout`); without a `url`, the registry's A2A surfaces name it by skill id.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, get_args, get_origin

from .._frozen import frozen
from ..errors import MeshError, ToolExecutionError
from ..sse import MEDIA_TYPE, aiter_events
from ..tools.injection import Injection, InjectionRule
from .a2a_marks import PEER_CLIENTS
from .wire import (
    CARD_PATHS,
    A2aEvent,
    A2aTask,
    Dialect,
    cancel_request,
    get_request,
    read_event,
    read_task,
    send_request,
)

if TYPE_CHECKING:
    import httpx2

__all__ = ["A2aClient", "A2aError", "A2aPeer"]

logger = logging.getLogger("mesh_framework.a2a")

POLL_FIRST, POLL_MAX = 0.05, 1.0  # seconds between `get` polls while a sent task works


class A2aError(ToolExecutionError):
    """An A2A peer could not be reached, refused the request, or answered something unreadable."""


@frozen
class A2aPeer:
    """Names the peer of an `A2aClient` parameter: `Annotated[A2aClient, A2aPeer("weather")]`."""

    name: str


Locator = Callable[[str], Awaitable[str | None]]  # peer name -> URL, from the registry's A2A surfaces


class _PeerInjection:
    """An `A2aClient` parameter of a tool receives its peer's client from the `a2a_clients` bean
    (a2a/clients.py): the peer `Annotated[A2aClient, A2aPeer("x")]` names, else the parameter's name."""

    def injection(self, parameter: str, annotation: Any, cls: type) -> Injection:
        peer = parameter
        if get_origin(annotation) is Annotated:
            peer = next((e.name for e in get_args(annotation)[1:] if isinstance(e, A2aPeer)), parameter)
        return Injection("bean", bean_type=A2aClient, bean=PEER_CLIENTS, key=peer)

    def constructor_refusal(self, cls: type) -> str | None:
        return None


class A2aClient:
    """Sends messages to one A2A agent and reads its tasks.

    Usage::

        @mesh_tool()
        async def forecast(city: str, weather: A2aClient) -> str:
            task = await weather.send(city)
            return task.text
    """

    __mesh_injection__: ClassVar[InjectionRule] = _PeerInjection()

    def __init__(
        self,
        name: str,
        *,
        url: str | None,
        http: Callable[[], httpx2.AsyncClient],
        token: str | None = None,
        dialect: str = "auto",
        timeout: float = 30.0,
        locate: Locator | None = None,
        auth: httpx2.Auth | None = None,
    ) -> None:
        self.name = name
        self._auth = auth  # an OAuth client's tokens (auth.dependency_clients.<peer>), over `token`
        self.url = url.rstrip("/") if url else None
        self.timeout = timeout
        self._http = http
        self._token = token
        self._dialect: Dialect | None = None if dialect == "auto" else dialect  # type: ignore[assignment]
        self._endpoint: str | None = None if self._dialect is None else self.url
        self._locate = locate
        self._located = False  # the URL came from the registry: looked up again when it stops answering
        self._auto = dialect == "auto"
        self._ids = itertools.count(1)

    def __repr__(self) -> str:
        return f"A2aClient({self.name!r}, url={self.url!r}, dialect={self._dialect or 'auto'!r})"

    @property
    def dialect(self) -> str | None:
        """`current` or `mcp-mesh` once known (set, or read from the peer's card on first use)."""
        return self._dialect

    async def card(self) -> dict[str, Any]:
        """The peer's Agent Card (of its dialect's well-known path)."""
        await self._connect()
        assert self.url is not None and self._dialect is not None
        response = await self._get(self.url + CARD_PATHS[self._dialect])
        return self._json(response, "its Agent Card")  # type: ignore[no-any-return]

    async def send(
        self,
        text: str | None = None,
        *,
        data: Mapping[str, Any] | None = None,
        skill: str | None = None,
        wait: bool = True,
    ) -> A2aTask:
        """Send one message (text and/or a data part); with `wait`, poll until the task ends."""
        dialect, endpoint = await self._connect()
        body = send_request(
            dialect, next(self._ids), text=_text(text, data), data=data, skill=skill, stream=False, wait=wait
        )
        task = read_task(await self._rpc(endpoint, body))
        if wait and not task.done:
            task = await self.wait(task.id)
        return task

    async def get_task(self, task_id: str) -> A2aTask:
        dialect, endpoint = await self._connect()
        return read_task(await self._rpc(endpoint, get_request(dialect, next(self._ids), task_id)))

    async def cancel(self, task_id: str) -> A2aTask:
        dialect, endpoint = await self._connect()
        return read_task(await self._rpc(endpoint, cancel_request(dialect, next(self._ids), task_id)))

    async def wait(self, task_id: str, timeout: float | None = None) -> A2aTask:
        """Poll `task_id` until it ends (at most `timeout` seconds, default the peer's timeout)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        delay = POLL_FIRST
        while True:
            task = await self.get_task(task_id)
            if task.done or task.state == "input-required":
                return task
            if time.monotonic() + delay > deadline:
                raise A2aError(
                    f"A2A peer '{self.name}': task {task_id} is still {task.state} after "
                    f"{self.timeout if timeout is None else timeout}s"
                )
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, POLL_MAX)

    async def stream(
        self, text: str | None = None, *, data: Mapping[str, Any] | None = None, skill: str | None = None
    ) -> AsyncIterator[A2aEvent]:
        """Send one message and yield the task's events as they come (status, artifact chunks)."""
        import httpx2  # here, not at import: marking tools loads no HTTP client

        dialect, endpoint = await self._connect()
        body = send_request(
            dialect, next(self._ids), text=_text(text, data), data=data, skill=skill, stream=True, wait=True
        )
        headers = {**self._headers(dialect), "Accept": MEDIA_TYPE}
        count = 0
        try:
            async with self._http().stream(
                "POST", endpoint, json=body, headers=headers, timeout=self.timeout, auth=self._send_auth
            ) as response:
                if response.status_code != 200 or MEDIA_TYPE not in response.headers.get("content-type", ""):
                    await response.aread()
                    self._result(response, body)  # raises the peer's error
                    raise A2aError(
                        f"A2A peer '{self.name}' at {endpoint} answered a stream request without a stream"
                    )
                async for sent in aiter_events(response.aiter_bytes()):
                    envelope = json.loads(sent.data)
                    if not isinstance(envelope, dict):
                        raise ValueError(f"an event's data is not a JSON object: {sent.data[:200]!r}")
                    if "error" in envelope:
                        raise A2aError(self._error_text(envelope["error"], body["method"]))
                    event = read_event(envelope.get("result"))
                    count += 1
                    yield event
                    if event.final:
                        return
        except httpx2.TimeoutException:
            raise A2aError(
                f"A2A peer '{self.name}' at {endpoint} sent nothing for {self.timeout}s mid-stream (after "
                f"{count} event(s)); raise a2a.peers.{self.name}.timeout if the skill is slow"
            ) from None
        except httpx2.TransportError as exc:
            raise A2aError(
                f"A2A peer '{self.name}' at {endpoint} broke the stream after {count} event(s): {exc!r}"
            ) from None
        except (json.JSONDecodeError, ValueError) as exc:
            raise A2aError(
                f"A2A peer '{self.name}' at {endpoint} sent an unreadable stream event: {exc}"
            ) from None
        except A2aError:
            raise
        except MeshError as exc:
            raise self._no_token(exc) from None

    async def _connect(self) -> tuple[Dialect, str]:
        """The dialect and JSON-RPC endpoint, found on first use (settings, registry, the peer's card)."""
        if self._dialect is not None and self._endpoint is not None:
            return self._dialect, self._endpoint
        if self.url is None:
            found = await self._locate(self.name) if self._locate is not None else None
            if found is None:
                raise A2aError(
                    f"A2A peer '{self.name}' has no URL: set a2a.peers.{self.name}.url, or register an agent "
                    f"with an A2A skill '{self.name}' in the registry"
                )
            self.url = found.rstrip("/")
            self._located = True
        if self._dialect is not None:
            self._endpoint = self.url
            return self._dialect, self.url
        dialects: tuple[Dialect, ...] = ("current", "mcp-mesh")
        for dialect in dialects:
            response = await self._get(self.url + CARD_PATHS[dialect])
            if response.status_code == 200:
                card = self._json(response, "its Agent Card")
                self._dialect = dialect
                self._endpoint = _endpoint_of(card, dialect, self.url)
                logger.debug("A2A peer '%s' speaks %s at %s", self.name, dialect, self._endpoint)
                return dialect, self._endpoint
        raise A2aError(
            f"A2A peer '{self.name}' at {self.url} serves no Agent Card ({CARD_PATHS['current']} and "
            f"{CARD_PATHS['mcp-mesh']} both failed); check a2a.peers.{self.name}.url"
        )

    async def _get(self, url: str) -> httpx2.Response:
        import httpx2

        try:
            return await self._http().get(
                url, headers=self._headers(None), timeout=self.timeout, auth=self._send_auth
            )
        except httpx2.TimeoutException:
            raise A2aError(f"A2A peer '{self.name}' at {url} did not answer within {self.timeout}s") from None
        except httpx2.HTTPError as exc:
            raise self._unreachable(url, exc) from None
        except MeshError as exc:  # the OAuth client's token endpoint failed (TokenEndpointError)
            raise self._no_token(exc) from None

    def _unreachable(self, url: str, exc: Exception) -> A2aError:
        """The error of a peer that cannot be reached; one found in the registry is looked up again on the
        next call (it may serve elsewhere now)."""
        again = ""
        if self._located:
            self.url = self._endpoint = None
            self._located = False
            if self._auto:
                self._dialect = None
            again = "; it is looked up in the registry again on the next call"
        return A2aError(f"A2A peer '{self.name}' at {url} cannot be reached: {exc!r}{again}")

    def _no_token(self, exc: MeshError) -> A2aError:
        """No access token to send (`exc` names the token endpoint and why; it logged its one line): the
        call fails as the A2A user expects, with an A2aError saying so."""
        return A2aError(f"A2A peer '{self.name}': {exc}")

    @property
    def _send_auth(self) -> Any:
        """The auth flow of each request: the OAuth client's, else the client's default (none)."""
        import httpx2

        return self._auth if self._auth is not None else httpx2.USE_CLIENT_DEFAULT

    def _headers(self, dialect: Dialect | None) -> dict[str, str]:
        headers = {"Authorization": f"Bearer {self._token}"} if self._token else {}
        if dialect == "current":
            headers["A2A-Version"] = "1.0"
        return headers

    async def _rpc(self, endpoint: str, body: dict[str, Any]) -> Any:
        import httpx2

        try:
            response = await self._http().post(
                endpoint,
                json=body,
                headers=self._headers(self._dialect),
                timeout=self.timeout,
                auth=self._send_auth,
            )
        except httpx2.TimeoutException:
            raise A2aError(
                f"A2A peer '{self.name}' at {endpoint} did not answer {body['method']} within {self.timeout}s"
            ) from None
        except httpx2.HTTPError as exc:
            raise self._unreachable(endpoint, exc) from None
        except MeshError as exc:
            raise self._no_token(exc) from None
        return self._result(response, body)

    def _result(self, response: httpx2.Response, body: dict[str, Any]) -> Any:
        if response.status_code == 401:
            raise A2aError(
                f"A2A peer '{self.name}' refused {body['method']}: authentication required; set "
                f"a2a.peers.{self.name}.token, or name an OAuth client in auth.dependency_clients.{self.name}"
                f"{_refusal(response)}"
            )
        envelope = self._json(response, f"its answer to {body['method']}")
        if isinstance(envelope, dict) and "error" in envelope:
            raise A2aError(self._error_text(envelope["error"], body["method"]))
        if not isinstance(envelope, dict) or "result" not in envelope:
            raise A2aError(f"A2A peer '{self.name}' answered {body['method']} without a result")
        return envelope["result"]

    def _json(self, response: httpx2.Response, what: str) -> Any:
        try:
            return response.json()
        except ValueError:
            raise A2aError(
                f"A2A peer '{self.name}' sent {what} that is not JSON (HTTP {response.status_code}: "
                f"{response.text[:120]!r})"
            ) from None

    def _error_text(self, error: Any, method: str) -> str:
        if isinstance(error, dict):
            return (
                f"A2A peer '{self.name}' refused {method}: {error.get('message')} (code {error.get('code')})"
            )
        return f"A2A peer '{self.name}' refused {method}: {error!r}"


def _text(text: str | None, data: Mapping[str, Any] | None) -> str | None:
    if text is None and data is None:
        raise ValueError("send() needs text or data")
    return text


def _refusal(response: httpx2.Response) -> str:
    """What a peer said refusing a request (its JSON-RPC error's message), as a suffix of the error."""
    try:
        said = response.json()["error"]["message"]
    except (ValueError, KeyError, TypeError):
        return ""
    return f" (it said: {said})" if isinstance(said, str) and said else ""


def _endpoint_of(card: Any, dialect: Dialect, url: str) -> str:
    """Where a card says to send JSON-RPC (the current dialect's JSONRPC interface, MCP Mesh's `url`)."""
    if isinstance(card, dict) and dialect == "current":
        for interface in card.get("supportedInterfaces") or []:
            if isinstance(interface, dict) and interface.get("protocolBinding") == "JSONRPC":
                return str(interface.get("url") or url)
    return url
