"""The heartbeat to an MCP Mesh registry: one full POST, then HEAD every interval, POST again on 202/410.

When the registry is unreachable the agent keeps serving with the topology it has and retries with a
backoff capped at the interval, so it re-registers within one interval of the registry's return. Nothing
here is on a tool call's path: calls only read the slots the answers fill.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import httpx2

from .. import observation
from ..security.redaction import redact_url
from .http_pool import IDEMPOTENT

__all__ = ["REJOIN_ROUNDS", "Heartbeat", "RegistryClient", "RegistryError"]

logger = logging.getLogger("mesh_framework.mesh")

# Heartbeat rounds an agent that registered again keeps the topology it holds while the registry's answers
# would drop some of it: the other agents register again within one interval of noticing, and one that
# noticed late (a busy machine, a retry's back-off) gets two more.
REJOIN_ROUNDS = 3

T = TypeVar("T")


class RegistryError(Exception):
    """The registry could not be reached, or answered something unusable."""


class RegistryClient:
    """The three registry calls an agent makes, to one registry or several replicas (`urls`): a call that
    cannot reach the current one moves on to the next, in a ring, so an agent follows whichever answers.
    With a `token`, every call carries `Authorization: Bearer TOKEN`."""

    def __init__(
        self, http: httpx2.AsyncClient, url: str | Sequence[str], timeout: float, *, token: str | None = None
    ) -> None:
        self.http = http
        self.urls = [u.rstrip("/") for u in ([url] if isinstance(url, str) else url)]
        if not self.urls:
            raise ValueError("a registry client needs at least one URL")
        self.timeout = timeout
        self._current = 0
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}

    @property
    def url(self) -> str:
        """The registry currently used."""
        return self.urls[self._current]

    @property
    def shown(self) -> str:
        """The current registry's URL as logs show it (credentials in it masked)."""
        return redact_url(self.url)

    def _fail_over(self) -> None:
        if len(self.urls) > 1:
            failed = self.shown
            self._current = (self._current + 1) % len(self.urls)
            logger.warning("registry %s unreachable; switching to %s", failed, self.shown)

    async def register(self, payload: dict[str, Any]) -> dict[str, Any]:
        # the same payload twice registers once: safe to repeat on a stale keep-alive connection
        response = await self._send("POST", "/heartbeat", json=payload, extensions=IDEMPOTENT)
        try:
            answer = response.json()
        except ValueError:
            raise RegistryError(
                f"registry answered POST /heartbeat with non-JSON (HTTP {response.status_code})"
            ) from None
        if response.status_code >= 400 or not isinstance(answer, dict) or answer.get("status") == "error":
            message = answer.get("message") if isinstance(answer, dict) else answer
            raise RegistryError(f"registry refused the registration (HTTP {response.status_code}): {message}")
        return answer

    async def check(self, agent_id: str) -> int:
        return (await self._send("HEAD", f"/heartbeat/{agent_id}")).status_code

    async def unregister(self, agent_id: str) -> None:
        await self._send("DELETE", f"/agents/{agent_id}")

    async def _send(self, method: str, path: str, **kwargs: Any) -> httpx2.Response:
        route = "/" + path.split("/")[1]  # the span's name carries no agent id
        with observation.tracer.registry_call(method, self.url + path, route) as span:
            response = await self._request(method, path, **kwargs)
            span.set("http.response.status_code", response.status_code)
            return response

    async def _request(self, method: str, path: str, **kwargs: Any) -> httpx2.Response:
        url, shown = self.url, self.shown
        try:
            response = await self.http.request(
                method, url + path, timeout=self.timeout, headers=self._headers, **kwargs
            )
        except httpx2.HTTPError as exc:
            self._fail_over()
            raise RegistryError(f"registry {shown} unreachable ({type(exc).__name__}: {exc})") from None
        if response.status_code == 401:
            given = "refused the token" if self._headers else "requires a token"
            raise RegistryError(f"registry {shown} {given} (HTTP 401); set registry.token to its token")
        return response


class Heartbeat:
    """Keeps the agent registered; hands every registry answer to `on_answer`."""

    def __init__(
        self,
        client: RegistryClient,
        payload: dict[str, Any],
        *,
        interval: float,
        on_answer: Callable[[dict[str, Any]], None],
        min_wake_gap: float = 0.2,
    ) -> None:
        self.client = client
        self.payload = payload
        self.agent_id = str(payload["agent_id"])
        self.interval = interval
        self.on_answer = on_answer
        self.min_wake_gap = min_wake_gap
        self.registered = asyncio.Event()
        # Set each time the agent registered again after the registry was away or had forgotten it.
        self.registered_again = asyncio.Event()
        self._wake = asyncio.Event()
        self._needs_post = True
        self._rejoined = False  # the registry forgot this agent (410) or was away: see _run
        self._forgotten = False  # the registry answered that it does not know this agent
        self._last_wake = 0.0
        self._task: asyncio.Task[None] | None = None
        self._posting: asyncio.Future[dict[str, Any]] | None = None  # the registration last sent
        self._down = payload.get("status") == "unhealthy"
        # Registry request timings, for metrics: (kind, seconds, failed).
        self.observer: Callable[[str, float, bool], None] | None = None
        # Awaited after each failed registry call, before the retry (the embedded registry's hand-over).
        self.on_failure: Callable[[], Awaitable[None]] | None = None
        # After registering again (the registry was away or forgot the agent): True for an answer that would
        # drop what the topology holds. Such answers are not applied, for at most REJOIN_ROUNDS rounds: see
        # _run. None: the first answer is held, whatever it says.
        self.holds: Callable[[dict[str, Any]], bool] | None = None
        self.rejoining = 0  # rounds the held topology may still be kept (answers pushed meanwhile too)
        # Called after each exchange that leaves the agent's topology current: an answer applied, or a check
        # the registry answered with nothing new.
        self.on_round: Callable[[], None] | None = None

    @property
    def withdrawn(self) -> bool:
        """The agent reported itself unhealthy: the heartbeat is paused until it is healthy again."""
        return self._down

    def set_health(self, status: str) -> None:
        """Report MCP Mesh's `status` (healthy, degraded, unhealthy) in a POST at once. Unhealthy withdraws
        the agent: the POST says so (our registry stops offering it) and a DELETE follows (MCP Mesh's
        registry reads no status; its soft delete does the same); then the heartbeat pauses, as MCP Mesh's
        does, until a healthy or degraded status registers the agent again."""
        if status == self.payload.get("status", "healthy"):
            return
        self.payload = {**self.payload, "status": status}
        self._down = status == "unhealthy"
        self._needs_post = True
        self._wake.set()

    async def _timed(self, kind: str, call: Awaitable[T]) -> T:
        observer = self.observer
        if observer is None:
            return await call
        started = time.perf_counter()
        try:
            value = await call
        except asyncio.CancelledError:
            raise  # stopped mid-call (shutdown): the registry did not fail, and the call has no duration
        except BaseException:
            observer(kind, time.perf_counter() - started, True)
            raise
        observer(kind, time.perf_counter() - started, False)
        return value

    async def _register(self) -> dict[str, Any]:
        """POST the payload, shielded: a stop lets a registration already sent finish (`_settle_posting`)."""
        self._posting = asyncio.ensure_future(self.client.register(self.payload))
        return await self._timed("register", asyncio.shield(self._posting))

    async def _settle_posting(self) -> None:
        """Let a registration already sent be answered (within the client's timeout) before the DELETE:
        the registry may still apply a POST whose caller stopped waiting, and one applied after the DELETE
        would bring the leaving agent back until it timed out."""
        posting, self._posting = self._posting, None
        if posting is None:
            return
        if not posting.done():
            await asyncio.wait({posting}, timeout=self.client.timeout)
        if not posting.done():
            posting.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await posting  # its outcome was the loop's business; retrieved so none is left unobserved

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"heartbeat {self.agent_id}")

    def update_payload(self, payload: dict[str, Any]) -> None:
        """Register again with a new payload (the agent's tools changed), at once."""
        self.payload = {**payload, "status": self.payload.get("status", "healthy")}
        self._needs_post = True
        self._wake.set()

    def forgotten(self) -> None:
        """The registry no longer knows this agent (its topology stream said so, as a HEAD's 410 does):
        register again now. A withdrawn (DOWN) agent stays out."""
        if not self._down:
            self._forgotten = self._rejoined = self._needs_post = True
            self._wake.set()

    def wake(self) -> None:
        """Ask for a full heartbeat now (rate-limited): the topology may have changed."""
        now = time.monotonic()
        if not self._down and now - self._last_wake >= self.min_wake_gap:
            self._last_wake = now
            self._needs_post = True
            self._wake.set()

    async def _sleep(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), timeout=seconds)
        self._wake.clear()

    def _register_next(self, *, forgotten: bool) -> None:
        """A check answered that the agent's topology changed (202) or that the registry does not know the
        agent (410: a registry restarted without its data, or a sweep): register in the next round."""
        self._needs_post = True
        self._rejoined = self._rejoined or forgotten
        self._forgotten = self._forgotten or forgotten

    def _round(self) -> None:
        if self.on_round is not None:
            self.on_round()

    def _take(self, answer: dict[str, Any], *, rejoined: bool) -> None:
        """Apply a registration's answer, unless the topology held is kept a round more (`holds`)."""
        if rejoined:
            self.rejoining = REJOIN_ROUNDS if self.holds is not None else 1
        if self.rejoining and (self.holds is None or self.holds(answer)):
            # A registry that lost its data answers before the other agents have registered again (each
            # does at its next heartbeat): keep the topology we hold, and ask again next round.
            self.rejoining -= 1
            self._needs_post = True
            return
        self.rejoining = 0
        self.on_answer(answer)
        self._round()

    async def _run(self) -> None:
        failures = 0
        while True:
            try:
                if self._needs_post:
                    self._needs_post = False
                    answer = await self._register()
                    if failures:
                        logger.info(
                            "registry %s is back: agent %s registered again", self.client.shown, self.agent_id
                        )
                    elif self._forgotten:
                        logger.info(
                            "registry %s no longer knew agent %s: registered again",
                            self.client.shown,
                            self.agent_id,
                        )
                    if failures or self._forgotten:
                        self.registered_again.set()
                    failures, self._forgotten = 0, False
                    rejoined, self._rejoined = self._rejoined and self.registered.is_set(), False
                    self.registered.set()
                    if self._down:
                        await self._timed("unregister", self.client.unregister(self.agent_id))
                        logger.warning("agent %s is DOWN: withdrawn from the registry", self.agent_id)
                    self._take(answer, rejoined=rejoined)
                elif not self._down:
                    status = await self._timed("check", self.client.check(self.agent_id))
                    if status in (202, 410):
                        self._register_next(forgotten=status == 410)
                        continue
                    if status != 200:
                        raise RegistryError(f"registry answered HEAD /heartbeat with HTTP {status}")
                    failures = 0
                    self._round()
            except RegistryError as exc:
                failures += 1
                self._needs_post = True
                self._rejoined = True
                delay = min(self.interval, 0.25 * 2 ** min(failures - 1, 8))
                if failures == 1 or failures % 20 == 0:
                    logger.warning(
                        "heartbeat failed (%s); serving with the last known topology, retrying", exc
                    )
                if self.on_failure is not None:
                    try:
                        await self.on_failure()
                    except Exception:
                        logger.exception("heartbeat failure handler failed")
                await self._sleep(delay)
                continue
            except Exception:
                logger.exception("heartbeat answer could not be applied")
            await self._sleep(self.interval)

    async def stop(self, *, unregister: bool = True) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        await self._settle_posting()
        if unregister:
            try:
                await self.client.unregister(self.agent_id)
            except RegistryError as exc:
                logger.warning("could not unregister %s: %s", self.agent_id, exc)
