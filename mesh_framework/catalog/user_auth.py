"""The user's sign-in to a catalog server (`mesh catalog login`) sent on the calls an agent or command of
the same user makes to it: an httpx2 auth flow that reads the sign-in for the server's URL on each request
(a sign-in or sign-out made while the agent runs counts), renews it with its refresh token shortly before
it expires or once when the server refuses it with a 401, and sends the request without one when the user
has not signed in (a Bearer challenge then fails the call naming the command to sign in with).

A sign-in that can no longer be renewed fails the call with a `LoginError` naming the command to run.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Callable, Generator
from typing import TYPE_CHECKING

import httpx2

if TYPE_CHECKING:
    from .user_tokens import UserLogin, UserTokenStore

__all__ = ["UserLoginAuth"]

logger = logging.getLogger("mesh_framework.catalog")


class UserLoginAuth(httpx2.Auth):
    """Sends the stored sign-in to catalog server `server` at `url`. `http` gives the client for the token
    endpoint (the agent's pooled one; not the client this auth is on). The store (default the user's,
    `UserTokenStore()`) and the sign-in code are loaded on the first request: an agent is built with one
    of these per HTTP catalog server, and most never sign in."""

    requires_request_body = True  # a refused request is sent again whole

    def __init__(
        self,
        server: str,
        url: str,
        *,
        http: Callable[[], httpx2.AsyncClient],
        store: UserTokenStore | None = None,
    ) -> None:
        self.server = server
        self.url = url
        self._store = store
        self._http = http

    @property
    def store(self) -> UserTokenStore:
        if self._store is None:
            from .user_tokens import UserTokenStore

            self._store = UserTokenStore()
        return self._store

    def __repr__(self) -> str:
        return f"UserLoginAuth({self.server!r}, {self.url!r})"

    async def current(self, *, renew: bool = False) -> UserLogin | None:
        """The sign-in to send (renewed first when due, or with `renew` when the server refused it)."""
        login = self.store.find(self.url)
        if login is None or not (renew or login.due()):
            return login
        from .oauth_login import refresh

        stale = login.access_token
        async with self.store.locked(self.url):
            login = self.store.find(self.url)  # another process may have renewed it meanwhile
            if login is None or (login.access_token != stale and not login.due()):
                return login
            fresh = await refresh(login, self._http(), server=self.server)
            self.store.save(fresh)
            logger.info("catalog server '%s': the user's sign-in renewed", self.server)
            return fresh

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        from .oauth_login import LoginError

        login = await self.current()
        if login is None:
            response = yield request
            challenge = response.headers.get("www-authenticate", "")
            if response.status_code == 401 and challenge.lower().startswith("bearer"):
                problem = LoginError(
                    f"catalog server '{self.server}' asks for a token (HTTP 401): run `mesh catalog login "
                    f"{self.server}` to sign in, or name this agent's client in auth.dependency_clients"
                )
                logger.warning("%s", problem)
                raise problem
            return
        request.headers["authorization"] = f"Bearer {login.access_token}"
        response = yield request
        if response.status_code != 401:
            return
        await response.aread()
        try:
            if not login.refresh_token:
                raise LoginError(
                    f"catalog server '{self.server}' refused the user's sign-in (HTTP 401); run "
                    f"`mesh catalog login {self.server}` again"
                )
            renewed = await self.current(renew=True)
        except LoginError as exc:
            logger.warning("%s", exc)  # the one line an expected failure gets
            raise
        if renewed is not None:
            request.headers["authorization"] = f"Bearer {renewed.access_token}"
            yield request

    def sync_auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
        raise RuntimeError("a user's sign-in is renewed asynchronously: use an async client")
