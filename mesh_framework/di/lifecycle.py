"""`BeanLifecycle`: how each bean is made, scoped, started and closed.

Singletons are dependency-injector thread-safe singletons, prototypes factories; an `async def` bean (or an
async generator) is awaited by `start()`, which makes every singleton in dependency order before the agent is
built and serves. Every bean made is recorded; `close()` closes them in reverse order of creation (dependents
first). Call-scoped beans are made by the call scope (`di/call_scope.py`) of the tool call, request or job.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dependency_injector import providers

from ..errors import MeshError, WiringError
from .call_scope import CallScope, CallScopes, close_bean, current_scope
from .definitions import BeanDefinition
from .wiring import Bean, Requirement

__all__ = ["BeanLifecycle"]

logger = logging.getLogger("mesh_framework")


class BeanLifecycle:
    """The beans of one agent: their providers, their start in dependency order and their close."""

    def __init__(
        self,
        container: Any,
        definitions: Sequence[BeanDefinition],
        requirements: Mapping[str, list[Requirement]],
    ) -> None:
        self.container = container
        self.definitions = {d.name: d for d in definitions}
        self.requirements = requirements
        self.created: list[tuple[str, Any, Any]] = []
        self.values: dict[str, Any] = {}  # async singletons, awaited by start()
        self.started = False
        self.scopes = CallScopes(self._resolve_in_call, [d.name for d in definitions if d.scope == "call"])

    # -- providers -------------------------------------------------------------------------------------

    def provider(self, definition: BeanDefinition) -> Any:
        """The container's provider of one bean (its parameters are added by the assembly)."""
        if definition.scope == "call":
            return providers.Callable(self._outside_call, definition.name)
        if definition.is_async:
            return providers.Callable(self._started_value, definition.name)
        make = self._maker(definition)
        kind = providers.ThreadSafeSingleton if definition.scope == "singleton" else providers.Factory
        if definition.configuration is not None:
            return kind(make, getattr(self.container, definition.configuration.name))
        return kind(make)

    def _maker(self, definition: BeanDefinition) -> Callable[..., Any]:
        def make(*owner: Any, **kwargs: Any) -> Any:
            value, closer = _call_sync(definition, owner[0] if owner else None, kwargs)
            self._record(definition, value, closer)
            return value

        make.__name__ = f"make_{definition.name}"
        return make

    def _record(self, definition: BeanDefinition, value: Any, closer: Any) -> None:
        scope = current_scope() if definition.scope == "prototype" else None
        if scope is not None:  # a prototype made for a call-scoped bean ends with the call
            scope.on_close(definition.name, value, closer)
        else:
            self.created.append((definition.name, value, closer))

    def _started_value(self, name: str) -> Any:
        if name not in self.values:
            definition = self.definitions[name]
            raise WiringError(
                [
                    f"{definition.location}: bean '{name}' ({definition.display}) is async and is made when "
                    "the agent starts (MeshApplication.serve, or mesh_client in tests); it was asked for "
                    "before that"
                ]
            )
        return self.values[name]

    def _outside_call(self, name: str) -> Any:
        definition = self.definitions[name]
        raise WiringError(
            [
                f"{definition.location}: bean '{name}' ({definition.display}) is call-scoped: it exists only "
                "during a tool call, route request or job; take it as a parameter of the tool or route"
            ]
        )

    # -- start and close --------------------------------------------------------------------------------

    async def start(self) -> None:
        """Make every singleton in dependency order, awaiting async ones; every failure in one WiringError."""
        if self.started:
            return
        failures: list[str] = []
        failed: set[str] = set()
        for name in self.start_order():
            definition = self.definitions[name]
            needs = {b.name for b in self._needed(name)}
            if needs & failed:
                failed.add(name)
                continue
            provider = getattr(self.container, name)
            try:
                if definition.is_async and not provider.overridden:
                    owner = self._owner(definition)
                    value, closer = await _call_async(definition, owner, self._kwargs(name))
                    self.created.append((name, value, closer))
                    self.values[name] = value
                else:
                    provider()
            except MeshError:
                await self.close()
                raise
            except Exception as exc:
                failed.add(name)
                failures.append(
                    f"{definition.location}: bean '{name}' ({definition.display}) failed to start: "
                    f"{type(exc).__name__}: {exc}"
                )
        if failures:
            await self.close()
            raise WiringError(failures)
        self.started = True

    async def close(self) -> None:
        """Close every bean made, in reverse order of creation; the next start makes them again."""
        created, self.created = self.created, []
        self.values.clear()
        self.started = False
        closed = False
        for name, value, closer in reversed(created):
            closed = await close_bean(name, value, closer) or closed
        if closed:  # what was built from the closed beans is built again on next use (tests start twice)
            self.container.reset_singletons()

    def start_order(self) -> list[str]:
        """The singletons, each after the beans it needs (definition order otherwise)."""
        order: list[str] = []
        seen: set[str] = set()

        def visit(name: str) -> None:
            if name in seen:
                return
            seen.add(name)
            for bean in self._needed(name):
                if bean.name in self.definitions:
                    visit(bean.name)
            definition = self.definitions[name]
            if definition.scope == "singleton" and not definition.lazy:
                order.append(name)

        for name in self.definitions:
            visit(name)
        return order

    def _needed(self, name: str) -> list[Bean]:
        found: list[Bean] = []
        definition = self.definitions[name]
        requirements = list(self.requirements.get(name, []))
        if definition.configuration is not None:
            requirements += self.requirements.get(definition.configuration.name, [])
        for requirement in requirements:
            bean = requirement.bean
            if bean is None:
                continue
            found.extend(bean.elements if bean.kind == "list" else [bean])
        return [b for b in found if b.kind == "component"]

    def _owner(self, definition: BeanDefinition) -> Any:
        if definition.configuration is None:
            return None
        return getattr(self.container, definition.configuration.name)()

    def _kwargs(self, name: str) -> dict[str, Any]:
        return {
            r.parameter: getattr(self.container, r.bean.name)()
            for r in self.requirements.get(name, [])
            if r.bean is not None
        }

    # -- the call scope -----------------------------------------------------------------------------------

    async def _resolve_in_call(self, scope: CallScope, name: str) -> Any:
        provider = getattr(self.container, name)
        if provider.overridden:  # a test's replacement: used as given, never closed
            return provider()
        definition = self.definitions[name]
        kwargs: dict[str, Any] = {}
        for requirement in self.requirements.get(name, []):
            bean = requirement.bean
            if bean is None:
                continue
            if bean.kind == "component" and bean.scope == "call":
                kwargs[requirement.parameter] = await scope.get(bean.name)
            else:
                kwargs[requirement.parameter] = getattr(self.container, bean.name)()
        value, closer = await _call_async(definition, self._owner(definition), kwargs)
        scope.on_close(name, value, closer)
        return value


def _target(definition: BeanDefinition, owner: Any) -> Callable[..., Any]:
    if owner is not None:
        return getattr(owner, definition.factory.__name__)  # type: ignore[no-any-return]
    return definition.factory


def _call_sync(definition: BeanDefinition, owner: Any, kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """Make a bean of a class, function or generator; (value, the generator to close it with or None)."""
    value = _target(definition, owner)(**kwargs)
    if inspect.isgenerator(value):
        generator = value
        try:
            return next(generator), generator
        except StopIteration:
            raise WiringError(
                [f"{definition.location}: @bean {definition.display} ended without yielding its bean"]
            ) from None
    return value, None


async def _call_async(definition: BeanDefinition, owner: Any, kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """Make a bean, awaiting an `async def` one or running an async generator to its `yield`."""
    target = _target(definition, owner)
    if inspect.isasyncgenfunction(definition.factory):
        generator = target(**kwargs)
        try:
            return await generator.__anext__(), generator
        except StopAsyncIteration:
            raise WiringError(
                [f"{definition.location}: @bean {definition.display} ended without yielding its bean"]
            ) from None
    if inspect.iscoroutinefunction(definition.factory):
        return await target(**kwargs), None
    return _call_sync(definition, owner, kwargs)
