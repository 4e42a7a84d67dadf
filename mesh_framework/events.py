"""Application events, in the spirit of Spring's `ApplicationListener`: components listen by type.

A component method marked `@event_listener` receives every published event that is an instance of the
type its first parameter is annotated with (or of the type given to the decorator). Listeners may be sync
or async; one that raises is logged on one line and does not stop the others.

Usage::

    @component
    class ToolAudit:
        @event_listener
        async def on_tools_changed(self, event: ToolsChanged) -> None:
            log.info("%s now offers %d tools", event.connection, len(event.tools))
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import typing
from collections.abc import Callable
from typing import Any, TypeVar, overload

__all__ = ["ApplicationEventPublisher", "event_listener", "listener_types"]

logger = logging.getLogger("mesh_framework.events")

F = TypeVar("F", bound=Callable[..., Any])
LISTENER_ATTR = "__mesh_event_listener__"
Listener = Callable[[Any], Any]


@overload
def event_listener(function: F, /) -> F: ...
@overload
def event_listener(*events: type) -> Callable[[F], F]: ...
def event_listener(*args: Any) -> Any:
    """Mark a component method as a listener; the event type comes from its first parameter's annotation,
    or from `@event_listener(EventA, EventB)`."""
    if len(args) == 1 and callable(args[0]) and not isinstance(args[0], type):
        setattr(args[0], LISTENER_ATTR, ())
        return args[0]

    def mark(function: F) -> F:
        setattr(function, LISTENER_ATTR, tuple(args))
        return function

    return mark


def listener_types(method: Callable[..., Any]) -> tuple[type, ...]:
    """The event types a marked method listens to; TypeError when it cannot tell."""
    declared = getattr(method, LISTENER_ATTR, None)
    if declared:
        return tuple(declared)
    function = inspect.unwrap(getattr(method, "__func__", method))
    hints = typing.get_type_hints(function)
    parameters = [p for p in inspect.signature(function).parameters.values() if p.name != "self"]
    if not parameters or not isinstance(hints.get(parameters[0].name), type):
        raise TypeError(
            f"@event_listener {function.__qualname__}: annotate its first parameter with the event type, "
            "or pass the type: @event_listener(ToolsChanged)"
        )
    return (hints[parameters[0].name],)


class ApplicationEventPublisher:
    """Delivers events to the listeners subscribed for their type (or a base of it). A framework bean."""

    def __init__(self) -> None:
        self._listeners: list[tuple[type, Listener]] = []
        self._pending: set[asyncio.Task[None]] = set()

    def subscribe(self, event_type: type, listener: Listener) -> Callable[[], None]:
        """Call `listener(event)` for every event of `event_type`; returns a function that unsubscribes."""
        entry = (event_type, listener)
        self._listeners.append(entry)
        return lambda: self._listeners.remove(entry) if entry in self._listeners else None

    def register(self, component: Any) -> int:
        """Subscribe every `@event_listener` method of `component`; returns how many were found."""
        found = 0
        for name in dir(type(component)):
            attribute = getattr(type(component), name, None)
            if callable(attribute) and hasattr(attribute, LISTENER_ATTR):
                method = getattr(component, name)
                for event_type in listener_types(attribute):
                    self.subscribe(event_type, method)
                found += 1
        return found

    async def publish(self, event: Any) -> None:
        """Deliver `event` to its listeners, in subscription order, and wait for them."""
        for event_type, listener in list(self._listeners):
            if isinstance(event, event_type):
                await self._deliver(listener, event)

    def publish_soon(self, event: Any) -> None:
        """Deliver `event` without waiting (from sync code on the loop, or with no loop at all)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(self.publish(event))
            return
        task = loop.create_task(self.publish(event))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def drain(self) -> None:
        """Wait for events published with `publish_soon` (tests, shutdown)."""
        while self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)

    @staticmethod
    async def _deliver(listener: Listener, event: Any) -> None:
        try:
            outcome = listener(event)
            if inspect.isawaitable(outcome):
                await outcome
        except Exception as exc:
            name = getattr(listener, "__qualname__", repr(listener))
            logger.error(
                "event listener %s failed on %s: %s: %s", name, type(event).__name__, type(exc).__name__, exc
            )
