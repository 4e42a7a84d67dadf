"""The call scope: one instance of each call-scoped bean per tool call, route request or job, closed when it
ends. A scope is opened only by the tools and routes that take a call-scoped bean (decided at start-up), so an
agent without one pays nothing per call; the open scope is held in a context variable.

`close_bean` is the one way a bean is closed, at a scope's end or at the agent's stop: a generator bean's code
after its `yield`, else `aclose()` or `close()` when the bean has one; a failure is logged on one line.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from contextvars import ContextVar
from typing import Any

from ..failures import exception_text

__all__ = ["CallScope", "CallScopes", "close_bean", "current_scope", "scoped_value"]

logger = logging.getLogger("mesh_framework")

Resolve = Callable[["CallScope", str], Awaitable[Any]]

_CURRENT: ContextVar[CallScope | None] = ContextVar("mesh_call_scope", default=None)


class CallScope:
    """The call-scoped beans of one call, made on first use, closed in reverse order when the call ends."""

    __slots__ = ("_closers", "_resolve", "values")

    def __init__(self, resolve: Resolve) -> None:
        self._resolve = resolve
        self.values: dict[str, Any] = {}
        self._closers: list[tuple[str, Any, Any]] = []

    async def get(self, name: str) -> Any:
        """This call's instance of the bean `name`."""
        if name in self.values:
            return self.values[name]
        value = await self._resolve(self, name)
        self.values[name] = value
        return value

    def on_close(self, name: str, value: Any, closer: Any) -> None:
        """Close `value` (through `closer`, a generator, when set) when the call ends."""
        self._closers.append((name, value, closer))

    async def close(self) -> None:
        closers, self._closers = self._closers, []
        for name, value, closer in reversed(closers):
            await close_bean(name, value, closer)


class CallScopes:
    """Opens call scopes; `names` are the call-scoped beans of the agent."""

    def __init__(self, resolve: Resolve, names: Collection[str]) -> None:
        self._resolve = resolve
        self.names = frozenset(names)

    @contextlib.asynccontextmanager
    async def open(self) -> AsyncIterator[CallScope]:
        scope = CallScope(self._resolve)
        token = _CURRENT.set(scope)
        try:
            yield scope
        finally:
            _CURRENT.reset(token)
            await scope.close()


def current_scope() -> CallScope | None:
    """The scope of the call running in this context, if one is open."""
    return _CURRENT.get()


def scoped_value(name: str) -> Any:
    """The instance of call-scoped bean `name` made for the call running in this context (None outside one:
    a job's call, whose scope opens when the job runs)."""
    scope = _CURRENT.get()
    return scope.values.get(name) if scope is not None else None


async def close_bean(name: str, value: Any, closer: Any = None) -> bool:
    """Close one bean; True when something was run. A failure is logged on one line, never raised."""
    try:
        if inspect.isgenerator(closer):
            try:
                next(closer)
            except StopIteration:
                return True
            logger.warning(
                "bean '%s': its generator yields more than once; only the first value is used", name
            )
            return True
        if inspect.isasyncgen(closer):
            try:
                await closer.__anext__()
            except StopAsyncIteration:
                return True
            logger.warning(
                "bean '%s': its generator yields more than once; only the first value is used", name
            )
            return True
        for method in ("aclose", "close"):
            close = getattr(value, method, None)
            if callable(close) and not isinstance(value, type):
                result = close()
                if inspect.isawaitable(result):
                    await result
                return True
    except Exception as exc:
        logger.warning("closing bean '%s' failed: %s", name, " ".join(exception_text(exc).split()))
        return True
    return False
