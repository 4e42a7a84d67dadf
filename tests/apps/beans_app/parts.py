"""The beans of `tests.apps.beans_app`."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Iterator, Sequence

from mesh_framework import (
    bean,
    component,
    conditional_on_class,
    conditional_on_missing_bean,
    conditional_on_property,
    configuration,
    mesh_route,
    mesh_tool,
    profile,
)

EVENTS: list[str] = []


def log(event: str) -> None:
    EVENTS.append(event)
    path = os.environ.get("BEANS_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as file:
            file.write(event + "\n")


class Clock:
    """A third-party-like class: no decorator, closed by its `close()`."""

    def __init__(self, zone: str) -> None:
        self.zone = zone

    def close(self) -> None:
        log("close clock")


class Pool:
    """Made by an `async def` bean, closed by its `aclose()`."""

    async def aclose(self) -> None:
        log("close pool")


class Journal:
    pass


class Session:
    made = 0

    def __init__(self, pool: Pool) -> None:
        Session.made += 1
        self.id = Session.made
        self.pool = pool


class Plugin:
    def __init__(self, name: str) -> None:
        self.name = name


class Widget:
    pass


@configuration
class Infrastructure:
    @bean
    def clock(self) -> Clock:
        log("make clock")
        return Clock("UTC")

    @bean
    async def pool(self, clock: Clock) -> Pool:
        await asyncio.sleep(0)
        log("make pool")
        return Pool()

    @bean
    def journal(self, pool: Pool) -> Iterator[Journal]:
        log("make journal")
        yield Journal()
        log("close journal")

    @bean(scope="call")
    async def session(self, pool: Pool) -> AsyncIterator[Session]:
        session = Session(pool)
        log(f"open session {session.id}")
        yield session
        log(f"close session {session.id}")

    @bean(order=0)
    def first_plugin(self) -> Plugin:
        return Plugin("first")


@configuration
class Fallbacks:
    @bean
    @conditional_on_missing_bean()
    def fallback_clock(self) -> Clock:
        return Clock("fallback")

    @conditional_on_class("no_such_module_for_beans_app")
    @bean
    def widget(self) -> Widget:
        return Widget()


@component(order=2)
class UpperPlugin(Plugin):
    def __init__(self) -> None:
        super().__init__("upper")


@component(order=1)
class LowerPlugin(Plugin):
    def __init__(self) -> None:
        super().__init__("lower")


@component(scope="prototype")
class Ticket:
    pass


@component
class Registry:
    def __init__(
        self, plugins: list[Plugin], journal: Journal, a: Ticket, b: Ticket, none: Sequence[Widget]
    ) -> None:
        self.plugins = plugins
        self.journal = journal
        self.tickets = (a, b)
        self.widgets = none


@component
@profile("dev")
class DevOnly:
    pass


@profile("!dev")
@component
class NotDev:
    pass


@component
@conditional_on_property("greeter.enabled")
class Greeter:
    pass


@conditional_on_property("greeter.style", having_value="formal", match_if_missing=True)
@component
class FormalGreeter:
    pass


@mesh_tool()
async def whoami(session: Session, again: Session) -> dict[str, int]:
    """The call's session, twice: the same instance within one call."""
    return {"session": session.id, "same": int(session is again)}


@mesh_tool()
def plugins(registry: Registry) -> list[str]:
    return [p.name for p in registry.plugins]


@mesh_tool()
def zone(clock: Clock) -> str:
    return clock.zone


class Flaky:
    """Its close fails: logged on one line, the other beans still close."""

    def close(self) -> None:
        raise RuntimeError("disk gone")


@configuration
class More:
    @bean
    def flaky(self, clock: Clock) -> Flaky:
        return Flaky()


@mesh_route("/session")
async def session_route(session: Session) -> dict[str, int]:
    """A route's request has its own session too, closed when the answer is sent."""
    return {"session": session.id}
